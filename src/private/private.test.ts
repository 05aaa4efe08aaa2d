// Private-media tokens and sessions on a real SQLite database, and the playlist rewrite.
import { expect, test } from "bun:test";
import { openDatabase } from "../db/client";
import { migrate } from "../db/migrate";
import { privateTokens } from "../db/schema";
import { admit, settle } from "./access";
import { withSession } from "./playlist";
import { mintToken, openSession, prunePrivateAccess, sessionValid, spendToken, tokenValid } from "./tokens";

function context() {
  const { sqlite, db } = openDatabase(":memory:");
  migrate(sqlite);
  let now = Date.UTC(2026, 10, 22);
  return {
    app: { db, clock: { now: () => new Date(now) }, config: { privateTokenTtlHours: 24 } } as never as Parameters<typeof mintToken>[0],
    advance: (ms: number) => { now += ms; },
    close: () => sqlite.close(),
  };
}

test("a token is a UUID stored only as its hash, spent once, for its own media only", () => {
  const { app, close } = context();
  const token = mintToken(app, "vi1");
  expect(token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  expect(JSON.stringify(app.db.select().from(privateTokens).all())).not.toContain(token);
  expect(tokenValid(app, "vi2", token)).toBe(false);
  expect(spendToken(app, "vi2", token)).toBe(false);
  expect(tokenValid(app, "vi1", token)).toBe(true);
  expect(spendToken(app, "vi1", token)).toBe(true);
  expect(spendToken(app, "vi1", token)).toBe(false);
  expect(tokenValid(app, "vi1", token)).toBe(false);
  close();
});

test("unused tokens expire after the TTL, sessions after 24 h, and pruning empties both tables", () => {
  const { app, advance, close } = context();
  const kept = mintToken(app, "vi1");
  const spent = mintToken(app, "vi1");
  spendToken(app, "vi1", spent);
  const session = openSession(app, "vi1");
  expect(sessionValid(app, "vi1", session)).toBe(true);
  expect(sessionValid(app, "vi2", session)).toBe(false);
  expect(prunePrivateAccess(app)).toEqual({ tokens: 1, sessions: 0 }); // the spent one
  advance(24 * 3600 * 1000 + 1);
  expect(tokenValid(app, "vi1", kept)).toBe(false);
  expect(sessionValid(app, "vi1", session)).toBe(false);
  expect(prunePrivateAccess(app)).toEqual({ tokens: 1, sessions: 1 });
  close();
});

test("admit and settle: public passes freely; a private token is spent only by settle, never by HEAD", () => {
  const { app, close } = context();
  expect(settle(app, admit(app, { id: "vi1", public: true }, {}, "videoId"), true)).toBeNull();
  expect(() => admit(app, { id: "vi1", public: false }, {}, "videoId")).toThrow();
  const token = mintToken(app, "vi1");
  expect(settle(app, admit(app, { id: "vi1", public: false }, { token, head: true }, "videoId"), true)).toBeNull();
  const pass = admit(app, { id: "vi1", public: false }, { token }, "videoId");
  expect(tokenValid(app, "vi1", token)).toBe(true); // admitted, not yet spent
  const session = settle(app, pass, true)!;
  expect(() => admit(app, { id: "vi1", public: false }, { token }, "videoId")).toThrow();
  expect(() => settle(app, pass, true)).toThrow(); // a second request holding the same pass loses
  expect(settle(app, admit(app, { id: "vi1", public: false }, { avh: session }, "videoId"), true)).toBe(session);
  close();
});

test("playlist URIs, lines and URI attributes alike, become root-relative and carry the session", () => {
  const master = [
    "#EXTM3U",
    `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",URI="../captions/en.m3u8"`,
    "#EXT-X-STREAM-INF:BANDWIDTH=1",
    "240p/index.m3u8",
    "https://cdn.example/elsewhere.m3u8",
    "",
  ].join("\n");
  expect(withSession(master, "/vod/vi1/hls/manifest.m3u8", "s-1")).toBe([
    "#EXTM3U",
    `#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",URI="/vod/vi1/captions/en.m3u8?avh=s-1"`,
    "#EXT-X-STREAM-INF:BANDWIDTH=1",
    "/vod/vi1/hls/240p/index.m3u8?avh=s-1",
    "https://cdn.example/elsewhere.m3u8",
    "",
  ].join("\n"));
  expect(withSession("#EXTINF:1.0,\nseg0.ts?x=1\n", "/vod/vi1/hls/240p/index.m3u8", "s")).toBe("#EXTINF:1.0,\n/vod/vi1/hls/240p/seg0.ts?x=1&avh=s\n");
});
