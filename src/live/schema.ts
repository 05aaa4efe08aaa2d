import { t } from "elysia";

const restream = t.Object({ name: t.String(), serverUrl: t.String(), streamKey: t.String() });

/** The api.video live-stream object as this server answers it. */
export const liveStreamSchema = t.Object({
  liveStreamId: t.String(),
  name: t.String(),
  streamKey: t.String(),
  public: t.Boolean(),
  assets: t.Object({ hls: t.String(), iframe: t.String(), player: t.String(), thumbnail: t.String() }),
  playerId: t.Optional(t.String()),
  broadcasting: t.Boolean(),
  restreams: t.Array(restream),
  createdAt: t.String(),
  updatedAt: t.String(),
});

// Restreams are checked by the service, so every broken rule is reported at once as
// `invalid-attribute` naming the field (`restreams[0][serverUrl]`), as api.video does.
const restreams = t.Optional(t.Unknown({ description: "Up to 5 {name, serverUrl: rtmp(s)://host/app, streamKey} destinations" }));
const fields = {
  public: t.Optional(t.Boolean()),
  playerId: t.Optional(t.Nullable(t.String())),
  restreams,
};
const name = t.String({ minLength: 1, error: "This attribute must be a non-empty string." });

export const liveStreamCreation = t.Object({ name, ...fields }, { additionalProperties: false });
export const liveStreamUpdate = t.Object({ name: t.Optional(name), ...fields }, { additionalProperties: false });

export const liveStreamListQuery = t.Object({
  streamKey: t.Optional(t.String()),
  name: t.Optional(t.String()),
  sortBy: t.Optional(t.String()),
  sortOrder: t.Optional(t.String()),
  currentPage: t.Optional(t.String()),
  pageSize: t.Optional(t.String()),
}, { additionalProperties: false });
