// HLS playlists of private media are rewritten so every URI they hold (variant playlists,
// segments, subtitle playlists) carries the viewer's `avh` session: hls.js and Safari then play a
// private video from its tokenised `assets.hls` alone, as they never add query parameters themselves.

/**
 * Resolves each URI of `text` against `playlistPath` (where the playlist logically lives, which
 * is not where a token URL served it) and returns them root-relative with `avh` set.
 */
export function withSession(text: string, playlistPath: string, session: string): string {
  const base = new URL(playlistPath, "http://vidhost.invalid");
  const sign = (uri: string) => {
    const url = new URL(uri, base);
    url.searchParams.set("avh", session);
    return url.origin === base.origin ? `${url.pathname}${url.search}` : uri;
  };
  return text.split("\n").map((line) => {
    const trimmed = line.trim();
    if (!trimmed) return line;
    if (!trimmed.startsWith("#")) return sign(trimmed);
    return line.replace(/URI="([^"]*)"/g, (_, uri: string) => `URI="${sign(uri)}"`);
  }).join("\n");
}
