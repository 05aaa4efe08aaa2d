import type { Environment } from "../config";
import type { AppContext } from "../context";
import type { playerThemes } from "../db/schema";
import { readSettings } from "./theme";

export type PlayerRow = typeof playerThemes.$inferSelect;

/** The storage folder of one player theme (its logo). */
export const playerKey = (p: { projectId: string; environment: Environment; id: string }, ...rest: string[]) =>
  [p.projectId, p.environment, "players", p.id, ...rest] as const;

/** Where a player's logo is served, on its environment's listener: one URL whatever the logo's format. */
export function logoUrl(app: Pick<AppContext, "urls">, environment: Environment, playerId: string): string {
  return `${app.urls[environment]}/assets/players/${playerId}/logo`;
}

/** The api.video player-theme object; `assets` holds the logo's URL and link once a logo is uploaded. */
export function playerBody(app: Pick<AppContext, "urls">, row: PlayerRow) {
  const assets: { logo?: string; link?: string } = {};
  if (row.logoFormat) {
    assets.logo = logoUrl(app, row.environment, row.id);
    if (row.logoLink) assets.link = row.logoLink;
  }
  return {
    name: row.name,
    ...readSettings(row.settings),
    playerId: row.id,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    assets,
  };
}
