// Calls to the admin listener with the session cookie (same origin, so the browser adds it; the page's
// script never sees it). A 429 waits for Retry-After and tries again; a 401 sends the user to sign-in.

export interface ApiProblem {
  title?: string;
  detail?: string;
  name?: string;
  type?: string;
  problems?: { title: string; name: string }[];
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly body: ApiProblem | null) {
    const first = body?.problems?.[0];
    super(first ? `${first.name}: ${first.title}` : body?.detail ?? body?.title ?? `Request failed (${status})`);
  }

  /** The route does not exist on this server (e.g. live streams before they are built). */
  get unknownRoute(): boolean {
    return this.status === 404 && !!this.body?.type?.endsWith("/unrecognized-request-url");
  }
}

let onSignedOut: () => void = () => {};

/** What to do when the session has ended (set once by main.ts). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A JSON request; resolves to the parsed body (undefined for 204). */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 429 && attempt < 4) {
      await sleep(Math.max(1, Number(response.headers.get("retry-after") ?? "1")) * 1000);
      continue;
    }
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    if (response.ok) return parsed as T;
    if (response.status === 401 && !path.startsWith("/dashboard/session")) onSignedOut();
    throw new ApiError(response.status, parsed ?? null);
  }
}

/** The base path of the embedded main API of one project and environment. */
export const scopeBase = (projectId: string, environment: string) =>
  `/projects/${encodeURIComponent(projectId)}/environments/${environment}`;
