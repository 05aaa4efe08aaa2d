// The one gate delivery passes through for private media. A request is admitted by a live `avh`
// session or by an unspent token; the token is spent only once the answer is known to succeed
// (`settle`), so a manifest still answering 202 (TSU polls it) or a HEAD request keeps it usable.
import type { AppContext } from "../context";
import { notFound } from "../http/errors";
import { openSession, sessionValid, spendToken, tokenValid } from "./tokens";

/** What a delivery request carries: the path token, the `avh` query parameter, and whether it is a HEAD. */
export interface Access {
  token?: string;
  avh?: string;
  head?: boolean;
}

/** An admitted request; `settle` turns it into the session later URLs carry. */
export interface Pass {
  mediaId: string;
  /** The 404's `name` when the pass fails late (a concurrent request spent the token first). */
  name: string;
  private: boolean;
  session?: string;
  token?: string;
  head: boolean;
}

type Ctx = Pick<AppContext, "db" | "clock" | "config">;

/** Admits a request to a media, or throws the same 404 as an unknown id (a private id is not confirmed). */
export function admit(app: Ctx, media: { id: string; public: boolean }, access: Access, name: string): Pass {
  const pass: Pass = { mediaId: media.id, name, private: !media.public, head: !!access.head };
  if (media.public) return pass;
  if (access.avh && sessionValid(app, media.id, access.avh)) return { ...pass, session: access.avh };
  if (access.token && tokenValid(app, media.id, access.token)) return { ...pass, token: access.token };
  throw notFound(name);
}

/**
 * Called when the answer will succeed: spends the pass's token (never on HEAD) and returns the
 * session the answer's URLs must carry: the request's own, a new one when `open` is asked for
 * after a token, or null (public media, or a token spent on a single file).
 */
export function settle(app: Ctx, pass: Pass, open: boolean): string | null {
  if (!pass.private) return null;
  if (pass.session) return pass.session;
  if (pass.head) return null;
  if (!pass.token || !spendToken(app, pass.mediaId, pass.token)) throw notFound(pass.name);
  return open ? openSession(app, pass.mediaId) : null;
}

/**
 * GET …/{id}/token/{token}/session: spends the path token (not on HEAD) for a 24-hour `avh`
 * session. Public media, or a request without a token, gets the same 404 as an unknown id.
 */
export function tokenSession(app: Ctx, pass: Pass, access: Access): { session_token: string } {
  if (!pass.private || !access.token) throw notFound(pass.name);
  return { session_token: settle(app, pass, !access.head) ?? "" };
}

/**
 * The Cache-Control of a delivered file: a private media's may be kept by the viewer's browser but
 * never by a shared cache (a CDN keying on the path alone would hand it to anyone).
 */
export function cacheControl(pass: Pick<Pass, "private">, value: string): string {
  return pass.private ? value.replace(/^public\b/, "private") : value;
}

/** Reads the access fields of a delivery request from its already-parsed query. */
export function accessOf(request: Request, query: { avh?: string }, token?: string): Access {
  return { token, avh: query.avh, head: request.method === "HEAD" };
}
