import { t } from "elysia";

/** The error body every listener answers with (see http/errors.ts). */
export const errorBody = t.Object({
  type: t.String(),
  title: t.String(),
  name: t.String(),
  status: t.Integer(),
  detail: t.Optional(t.String()),
  problems: t.Optional(t.Array(t.Object({ type: t.String(), title: t.String(), name: t.String() }))),
});

/** api.video's 429 body: no `name`. */
export const tooManyRequestsBody = t.Object({ type: t.String(), title: t.String(), status: t.Integer() });

/** Error statuses any authenticated main-API route may answer with. */
export const apiErrors = { 400: errorBody, 401: errorBody, 404: errorBody, 429: tooManyRequestsBody, 500: errorBody };
