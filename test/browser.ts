// Shared helpers for browser tests: Debian's Chromium driven by playwright-core (no downloaded browsers).
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

/** Where screenshots go; test-output/ is git-ignored. */
export const SCREENSHOT_DIR = resolve(import.meta.dir, "..", "test-output", "screenshots");

/** The Chromium executable: $CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || "/usr/bin/chromium";
}

/** Whether a Chromium executable is installed, so suites can skip cleanly where it is not. */
export function chromiumAvailable(): boolean {
  return existsSync(chromiumPath());
}

/**
 * Starts a headless Chromium that never talks to the network on its own and may autoplay with sound.
 * Playwright gives every launch() a fresh temporary user-data-dir and deletes it on close (it refuses
 * a --user-data-dir argument to launch()), so runs share no profile, cache or cookies.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
}

/** Saves a full-page PNG as test-output/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, "_")}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
