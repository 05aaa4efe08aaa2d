import { Elysia } from "elysia";
import type { AppContext } from "../context";
import {
  ApiError, invalidAttributes, invalidPayload, invalidProblem, methodNotAllowed, payloadTooLarge,
  requiredProblem, serverError, unrecognizedUrl, type ErrorDialect, type Problem,
} from "./errors";

export const JSON_BODY_LIMIT = 1024 * 1024;

/** A JSON response with exactly `Content-Type: application/json` (the official Node client rejects a charset). */
export function json(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), { status, headers: { ...headers, "content-type": "application/json" } });
}

/** `/restreams/0/serverUrl` → `restreams[0][serverUrl]`, api.video's way of naming nested attributes. */
function attributeName(path: string): string {
  const [head = "", ...rest] = path.replace(/^\//, "").split("/");
  return head + rest.map((p) => `[${p}]`).join("");
}

function describe(schema: any): string {
  if (schema?.error) return String(schema.error);
  if (schema?.anyOf?.every((s: any) => s.const !== undefined)) {
    return `This attribute must be one of: ${schema.anyOf.map((s: any) => s.const).join(", ")}.`;
  }
  const kind: Record<string, string> = { array: "an array", string: "a string", boolean: "a boolean", integer: "an integer", number: "a number", object: "an object" };
  return `This attribute must be ${kind[schema?.type] ?? "valid"}.`;
}

/** Elysia's schema failures as api.video problems: one per attribute, required before invalid. */
function validationProblems(all: { path: string; message: string; schema?: unknown }[]): Problem[] {
  const byName = new Map<string, Problem>();
  for (const e of all) {
    const name = attributeName(e.path);
    if (byName.has(name)) continue;
    if (e.message === "Expected required property") byName.set(name, requiredProblem(name));
    else if (e.message === "Unexpected property") byName.set(name, invalidProblem(name, "This attribute is not allowed."));
    else byName.set(name, invalidProblem(name, describe(e.schema)));
  }
  return [...byName.values()];
}

/** Routes as regular expressions, to tell an unknown path (404) from a wrong method (405). */
function routeTable(routes: { method: string; path: string }[]) {
  return routes.map((r) => ({
    method: r.method,
    pattern: new RegExp("^" + r.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*") + "/?$"),
  }));
}

/** Reads a small text body, refusing (413, naming `label`) more than `limit` bytes before buffering them. */
export async function readBoundedText(request: Request, limit: number, label: string): Promise<string> {
  if (Number(request.headers.get("content-length") ?? "0") > limit) throw payloadTooLarge(label);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of (request.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw payloadTooLarge(label);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Reads a JSON body, refusing more than JSON_BODY_LIMIT bytes before buffering them. */
async function readJson(request: Request): Promise<unknown> {
  const text = await readBoundedText(request, JSON_BODY_LIMIT, "1 MiB");
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw invalidPayload();
  }
}

/** Upload routes use `parse: "stream"`: Elysia leaves the body alone and the handler streams it to disk. */
export function streamedBody() {
  return new Elysia().parser("stream", () => null);
}

/** "METHOD /route/:pattern" of every route declared with `parse: "stream"` (Elysia keeps a named parser as `{fn: name}`). */
function streamedRoutes(routes: { method: string; path: string; hooks?: { parse?: unknown } }[]): Set<string> {
  const streams = (hook: unknown) => hook === "stream" || (hook as { fn?: unknown } | null)?.fn === "stream";
  return new Set(routes.filter((r) => [r.hooks?.parse].flat().some(streams)).map((r) => `${r.method} ${r.path}`));
}

/** The root of each listener: JSON bodies and answers, the one error handler, 404 versus 405. */
export function baseApp(app: AppContext, name: string, dialect: ErrorDialect = "main") {
  let table: ReturnType<typeof routeTable> | undefined;
  let streamed: Set<string> | undefined;
  const root: Elysia<any, any, any, any, any, any, any> = new Elysia({ name, normalize: false })
    // Runs before a route's own parser, for every body, before authentication.
    .onParse(async ({ request, contentType, route }) => {
      streamed ??= streamedRoutes(root.routes);
      if (streamed.has(`${request.method} ${route}`)) return; // the route's "stream" parser: the handler reads it
      if (contentType?.startsWith("application/json")) return (await readJson(request)) ?? null;
      // Any other body is read within the same bound and handed on as text, which every body schema
      // refuses: Elysia's own form, multipart and text parsers would first buffer a body of any size.
      return readBoundedText(request, JSON_BODY_LIMIT, "1 MiB");
    })
    .mapResponse({ as: "global" }, ({ responseValue, set }) => {
      if (responseValue instanceof Response || responseValue === undefined || responseValue === null) return;
      if (typeof responseValue !== "object") return;
      // Plain objects and arrays are left to Elysia, which answers with Response.json(value, set): one
      // Response with every header. Returning our own Response while `set.headers` holds the CORS and
      // rate-limit headers would make Elysia copy it, body as a stream, to merge them.
      set.headers["content-type"] = "application/json";
      const proto = Object.getPrototypeOf(responseValue);
      if (proto === Object.prototype || proto === Array.prototype || proto === null) return;
      const status = typeof set.status === "number" ? set.status : 200;
      return json(responseValue, status, set.headers as Record<string, string>);
    })
    .onError({ as: "global" }, ({ code, error, set, request, path }) => {
      let failure: ApiError;
      // Errors thrown while parsing (the body limit) arrive wrapped in Elysia's ParseError.
      const cause = (error as { cause?: unknown }).cause;
      if (error instanceof ApiError) failure = error;
      else if (cause instanceof ApiError) failure = cause;
      else if (code === "VALIDATION") {
        const v = error as unknown as { type: string; value: unknown; all: { path: string; message: string; schema?: unknown }[] };
        if (v.type === "body" && (v.value === null || typeof v.value !== "object" || Array.isArray(v.value))) {
          failure = invalidPayload("The request body must be a JSON object.");
        } else failure = invalidAttributes(validationProblems(v.all));
      } else if (code === "PARSE") failure = invalidPayload();
      else if (code === "NOT_FOUND") {
        table ??= routeTable(root.routes);
        const allow = [...new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method))];
        failure = allow.length && !allow.includes(request.method) ? methodNotAllowed(allow) : unrecognizedUrl();
      } else {
        app.log.error("request failed", { method: request.method, path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        failure = serverError();
      }
      // A Response, not a body: Elysia's listener-level error path (404, 405, 429) sends only a Response as is.
      const answer = json(failure.body(app.config.docsUrl, dialect), failure.status, { ...(set.headers as Record<string, string>), ...failure.fields.headers });
      // It carries every header and the status already: with `set` left as it is, Elysia would copy
      // it into a new Response, its body as a stream, to merge them a second time.
      set.headers = {};
      set.status = 200;
      return answer;
    });
  return root;
}
