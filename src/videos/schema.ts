import { t } from "elysia";

const nullableString = t.Nullable(t.String());

/** The api.video video object as this server answers it. */
export const videoSchema = t.Object({
  videoId: t.String(),
  createdAt: t.String(),
  title: t.String(),
  description: t.String(),
  publishedAt: t.String(),
  updatedAt: t.String(),
  discardedAt: nullableString,
  deletesAt: nullableString,
  discarded: t.Boolean(),
  language: nullableString,
  languageOrigin: nullableString,
  tags: t.Array(t.String()),
  metadata: t.Array(t.Object({ key: t.String(), value: t.String() })),
  source: t.Object({
    uri: t.String(),
    type: t.Optional(t.String()),
    liveStream: t.Optional(t.Object({ liveStreamId: t.String(), links: t.Array(t.Object({ rel: t.String(), uri: t.String() })) })),
  }),
  /** null while discarded. */
  assets: t.Nullable(t.Object({ iframe: t.String(), player: t.String(), hls: t.String(), thumbnail: t.String(), mp4: t.Optional(t.String()) })),
  playerId: t.Optional(t.String()),
  public: t.Boolean(),
  panoramic: t.Boolean(),
  mp4Support: t.Boolean(),
});

const stringList = t.Array(t.String({ maxLength: 255 }), { error: "This attribute must be an array of strings." });
const metadataList = t.Array(t.Object({ key: t.String(), value: t.String() }), { error: "This attribute must be an array of {key, value} objects." });

/** Fields accepted on create and update (api.video's names; `_public` arrives as `public`). */
const videoFields = {
  description: t.Optional(t.String()),
  public: t.Optional(t.Boolean()),
  panoramic: t.Optional(t.Boolean()),
  mp4Support: t.Optional(t.Boolean()),
  playerId: t.Optional(t.Nullable(t.String())),
  tags: t.Optional(stringList),
  metadata: t.Optional(metadataList),
  language: t.Optional(t.Nullable(t.String())),
  transcript: t.Optional(t.Boolean()),
  transcriptSummary: t.Optional(t.Boolean()),
  transcriptSummaryAttributes: t.Optional(stringList),
};

/** Write-only fields of POST /videos (reference §3, §8.2): applied when the source is encoded, never changed after. */
const creationOnly = {
  watermark: t.Optional(t.Object({
    id: t.Optional(t.String()), top: t.Optional(t.String()), left: t.Optional(t.String()), bottom: t.Optional(t.String()), right: t.Optional(t.String()),
    width: t.Optional(t.String()), height: t.Optional(t.String()), opacity: t.Optional(t.String()),
  }, { additionalProperties: false, error: "This attribute must be an object of strings: id, top, left, bottom, right, width, height, opacity." })),
  clip: t.Optional(t.Object({ startTimecode: t.Optional(t.String()), endTimecode: t.Optional(t.String()) }, {
    additionalProperties: false, error: "This attribute must be an object with startTimecode and endTimecode strings.",
  })),
};

export const videoCreation = t.Object({
  title: t.String({ minLength: 1, error: "This attribute must be a non-empty string." }),
  ...videoFields,
  ...creationOnly,
  // A URL to download or the videoId of a video to copy (imports/); the answer is then 202.
  source: t.Optional(t.String({ maxLength: 2048, error: "This attribute must be an http(s) URL or a videoId of this project." })),
}, { additionalProperties: false });
export const videoUpdate = t.Object({ title: t.Optional(t.String({ minLength: 1, error: "This attribute must be a non-empty string." })), ...videoFields }, { additionalProperties: false });

const nullableNumber = t.Nullable(t.Number());

export const videoStatusSchema = t.Object({
  ingest: t.Object({
    status: t.Optional(t.String()),
    filesize: nullableNumber,
    receivedBytes: t.Array(t.Object({ from: t.Number(), to: t.Number(), total: nullableNumber })),
    receivedParts: t.Object({ parts: t.Array(t.Number()), total: nullableNumber }),
  }),
  encoding: t.Object({
    playable: t.Boolean(),
    qualities: t.Array(t.Object({ type: t.String(), quality: t.String(), status: t.String() })),
    metadata: t.Object({
      width: nullableNumber, height: nullableNumber, bitrate: nullableNumber, duration: nullableNumber, framerate: nullableNumber,
      samplerate: nullableNumber, videoCodec: nullableString, audioCodec: nullableString, aspectRatio: nullableString,
    }),
    failureReason: nullableString,
  }),
});
