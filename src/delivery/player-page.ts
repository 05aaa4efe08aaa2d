// The embeddable player page as served for a video (/vod/{id}) and for a live stream (/live/{id}):
// the same page, the same handling of private media, the same assets of the environment's listener.
import { COLLECT_PATH } from "../analytics/collect-routes";
import type { Environment } from "../config";
import type { AppContext } from "../context";
import { pageTheme } from "../players/service";
import { settle, type Pass } from "../private/access";
import { HLS_JS_PATH } from "./hls-asset";
import { renderPlayerPage, type PlayerPageOptions } from "./player";

/** What the page plays: the media (its player theme and analytics id) and its unsigned URLs. */
export interface PageMedia extends Pick<PlayerPageOptions, "title" | "hlsUrl" | "posterUrl" | "live" | "chapters"> {
  owner: { id: string; projectId: string; environment: Environment; playerId: string | null };
}

/**
 * The player page's response. A private media's page (`?token=`) spends the token and hands its
 * own fetches (the playlist, possibly several times, and the poster) one `avh` session; such a
 * page is then private and never stored.
 */
export function playerPageResponse(app: AppContext, environment: Environment, pass: Pass, media: PageMedia): Response {
  const origin = app.urls[environment];
  const session = settle(app, pass, true);
  const withAvh = (url: string) => (session ? `${url}?avh=${session}` : url);
  const html = renderPlayerPage({
    title: media.title,
    hlsUrl: withAvh(media.hlsUrl),
    posterUrl: media.posterUrl === null ? null : withAvh(media.posterUrl),
    hlsJsUrl: `${origin}${HLS_JS_PATH}`,
    live: media.live,
    chapters: media.chapters,
    ...pageTheme(app, media.owner),
    analytics: { url: `${origin}${COLLECT_PATH}`, mediaId: media.owner.id },
  });
  return new Response(html, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": session ? "private, no-store" : "no-cache" } });
}
