/** Every error the API answers with, in api.video's problem shape. The one `onError` lives in http/app.ts. */

export interface Problem {
  kind: string;
  title: string;
  name: string;
}

/** Main API bodies are api.video's; the admin listener adds the admin API's 400 fields. */
export type ErrorDialect = "main" | "admin";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    readonly title: string,
    /** `name: null` leaves the attribute out of main-API bodies (api.video's 429 has none). */
    readonly fields: { name?: string | null; detail?: string; problems?: Problem[]; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(title);
  }

  /**
   * The JSON body: `type` is `{docsUrl}/reference/<kind>`. The admin dialect adds api.video admin's
   * 400 fields: `total_problems` (how many rules were broken) and `constraint` (the first one's kind).
   */
  body(docsUrl: string, dialect: ErrorDialect = "main"): Record<string, unknown> {
    const body: Record<string, unknown> = { type: `${docsUrl}/reference/${this.kind}`, title: this.title };
    if (this.fields.name !== null || dialect === "admin") body.name = this.fields.name ?? "";
    body.status = this.status;
    if (this.fields.detail !== undefined) body.detail = this.fields.detail;
    if (this.fields.problems) {
      body.problems = this.fields.problems.map((p) => ({ type: `${docsUrl}/reference/${p.kind}`, title: p.title, name: p.name }));
    }
    if (dialect === "admin" && this.status === 400) {
      body.total_problems = this.fields.problems?.length ?? 1;
      body.constraint = this.fields.problems?.[0]?.kind ?? this.kind;
    }
    return { ...body, ...this.fields.extra };
  }
}

export const requiredProblem = (name: string): Problem => ({ kind: "attribute-required", title: "This attribute is required.", name });
export const invalidProblem = (name: string, title: string): Problem => ({ kind: "invalid-attribute", title, name });

/** 400 listing every violated rule; the top level repeats the first one. */
export function invalidAttributes(problems: Problem[]): ApiError {
  const first = problems[0];
  return new ApiError(400, first.kind, "Invalid attributes.", { name: first.name, detail: first.title, problems });
}

export const invalidAttribute = (name: string, title: string) => invalidAttributes([invalidProblem(name, title)]);

export const invalidPayload = (detail = "The request body could not be read as JSON.") =>
  new ApiError(400, "invalid-payload", "The payload is invalid.", { detail });

export const payloadTooLarge = (limit: string) =>
  new ApiError(413, "payload-too-large", "The payload is too large.", {
    detail: `Request bodies of this kind are limited to ${limit}.`,
    // The rest of the body is never read: the connection cannot carry another request after it.
    headers: { connection: "close" },
  });

/** 400 `uploaded-file-invalid-file`: the uploaded file is not what the route takes (its `file` field named). */
export const invalidFile = (detail: string, title = "The uploaded file is not a supported image.") =>
  new ApiError(400, "uploaded-file-invalid-file", title, { name: "file", detail });

export const notFound = (name: string) => new ApiError(404, "resource-not-found", "The requested resource could not be found.", { name });

export const unrecognizedUrl = () => new ApiError(404, "unrecognized-request-url", "Unrecognized request URL.");

export const methodNotAllowed = (allow: string[]) =>
  new ApiError(405, "method-not-allowed", "Method is not allowed for this route.", { headers: { Allow: allow.join(", ") } });

export const unauthorized = (kind: string, title: string, detail?: string) => new ApiError(401, kind, title, { detail });

export const invalidCredentials = (detail: string) =>
  new ApiError(400, "authentication-invalid-user-credentials", "The user credentials were incorrect.", { detail });

export const tooManyRequests = (retryAfterS: number) =>
  new ApiError(429, "too-many-requests", "Too many requests.", { name: null, headers: { "Retry-After": String(retryAfterS) } });

export const conflict = (kind: string, title: string, name: string, detail?: string) => new ApiError(409, kind, title, { name, detail });

export const serverError = () => new ApiError(500, "server-error", "Server error", { detail: "An unexpected error occurred; it has been logged." });
