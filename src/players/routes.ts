import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { streamedBody } from "../http/app";
import { pageQuery, paginationSchema } from "../http/pagination";
import { apiErrors, errorBody } from "../http/schemas";
import type { ScopePlugin } from "../http/scope";
import { deleteLogo, logoFile, uploadLogo } from "./logo";
import { createPlayer, deletePlayer, getPlayer, listPlayers, updatePlayer } from "./service";
import { COLOURS, FLAGS } from "./theme";
import { wholeFileUpload } from "../uploads/receive";

// One schema per field name (the colour and flag lists live in theme.ts).
const fields = <T>(names: readonly string[], schema: () => T) => Object.fromEntries(names.map((n) => [n, schema()])) as Record<string, T>;

/** The api.video player-theme object as this server answers it. */
const playerSchema = t.Object({
  name: t.String(),
  ...fields(COLOURS, () => t.String()),
  ...fields(FLAGS, () => t.Boolean()),
  playerId: t.String(),
  createdAt: t.String(),
  updatedAt: t.String(),
  assets: t.Object({ logo: t.Optional(t.String()), link: t.Optional(t.String()) }),
});

// Checked by the service, so every broken rule is reported at once by name, as api.video does.
const payload = t.Object({
  name: t.Optional(t.Unknown({ description: "At most 100 characters" })),
  ...fields(COLOURS, () => t.Optional(t.Unknown({ description: "A CSS colour: rgba(r, g, b, a), rgb(r, g, b) or #hex" }))),
  ...fields(FLAGS, () => t.Optional(t.Unknown({ description: "A boolean" }))),
}, { additionalProperties: false });

const params = t.Object({ playerId: t.String() });
const one = { 200: playerSchema, ...apiErrors };
const tags = ["Player themes"];

/** Main API /players. */
export function playerRoutes(scoped: ScopePlugin) {
  return new Elysia({ prefix: "/players", normalize: false })
    .use(scoped)
    .use(streamedBody())
    .post("", ({ scope, body, set }) => {
      set.status = 201;
      return createPlayer(scope, body ?? {});
    }, {
      body: t.Optional(payload), response: { 201: playerSchema, ...apiErrors },
      detail: { summary: "Create a player theme (colours and flags not given get api.video's defaults)", tags },
    })
    .get("", ({ scope, query, request }) => listPlayers(scope, { url: request.url, query }), {
      query: t.Object({ sortBy: t.Optional(t.String()), sortOrder: t.Optional(t.String()), ...pageQuery }, { additionalProperties: false }),
      response: { 200: t.Object({ data: t.Array(playerSchema), pagination: paginationSchema }), ...apiErrors },
      detail: { summary: "List player themes (sortBy=name|createdAt|updatedAt, sortOrder)", tags },
    })
    .get("/:playerId", ({ scope, params }) => getPlayer(scope, params.playerId), {
      params, response: one, detail: { summary: "Get a player theme", tags },
    })
    .patch("/:playerId", ({ scope, params, body }) => updatePlayer(scope, params.playerId, body ?? {}), {
      params, body: t.Optional(payload), response: one, detail: { summary: "Update a player theme (only the fields given)", tags },
    })
    .delete("/:playerId", async ({ scope, params, set }) => {
      await deletePlayer(scope, params.playerId);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete a player theme and its logo", tags } })
    .post("/:playerId/logo", async ({ scope, params, request, set }) => {
      set.status = 201;
      return uploadLogo(scope, params.playerId, wholeFileUpload(request));
    }, {
      parse: "stream", params, response: { 201: playerSchema, ...apiErrors },
      detail: { summary: "Upload a logo: multipart `file` (jpeg or png, ≤ 100 KiB, ≤ 200×100 px) and `link` (http(s) URL)", tags },
    })
    .delete("/:playerId/logo", async ({ scope, params, set }) => {
      await deleteLogo(scope, params.playerId);
      set.status = 204;
    }, { params, response: { 204: t.Void(), ...apiErrors }, detail: { summary: "Delete the logo", tags } });
}

/** Public delivery of player logos on an environment's listener (`assets.logo`). */
export function playerAssetRoutes(app: AppContext, environment: Environment) {
  return new Elysia({ prefix: "/assets/players", normalize: false })
    .get("/:playerId/logo", ({ params }) => logoFile(app, environment, params.playerId), {
      params, response: { 200: t.Any(), 404: errorBody }, detail: { summary: "A player theme's logo", tags: ["Delivery"] },
    });
}
