import { Elysia, t } from "elysia";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { errorBody } from "../http/schemas";
import { exchangeApiKey, refreshTokens } from "./service";

const tokens = t.Object({
  token_type: t.Literal("Bearer"),
  expires_in: t.Integer(),
  access_token: t.String(),
  refresh_token: t.String(),
});

/** /auth on a main-API listener: unauthenticated, any Authorization header is ignored. */
export function authRoutes(app: AppContext, environment: Environment) {
  return new Elysia({ prefix: "/auth", normalize: false })
    .post("/api-key", ({ body }) => exchangeApiKey(app, environment, body.apiKey), {
      body: t.Object({ apiKey: t.String() }),
      response: { 200: tokens, 400: errorBody },
      detail: { summary: "Get a bearer token from an API key", tags: ["Authentication"] },
    })
    .post("/refresh", ({ body }) => refreshTokens(app, environment, body.refreshToken), {
      body: t.Object({ refreshToken: t.String() }),
      response: { 200: tokens, 400: errorBody },
      detail: { summary: "Rotate the access and refresh tokens", tags: ["Authentication"] },
    });
}
