// The dashboard's built assets inside the compiled binary. From a checkout this stays null and the
// dashboard is built from web/ on first use (bundle.ts); `bun run build` (scripts/build.ts) builds
// it first and has the bundler load this module with the result in place of null.
import type { DashboardAssets } from "./bundle";

export const embeddedDashboard: DashboardAssets | null = null;
