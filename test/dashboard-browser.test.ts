// The dashboard in Debian's Chromium, end to end against a real appliance: sign in, create a project,
// enable production, create a sandbox key and use it on the sandbox API, add a webhook, upload a clip
// in chunks and watch it become playable, read usage, revoke the key and see the API refuse it, sign
// out. Screenshots of every main page (desktop and phone) go to test-output/screenshots/.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { chromiumAvailable, launchBrowser, screenshot } from "./browser";
import { makeClip, makeLargeClip } from "./fixtures/media";
import { basic, startTestAppliance, waitFor, type TestAppliance } from "./helpers";
import { publish } from "./e2e/live-support";

setDefaultTimeout(120_000);

const PHONE = { width: 390, height: 844 };

describe.skipIf(!chromiumAvailable())("the dashboard in Chromium", () => {
  let app: TestAppliance;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let clip: string;
  let receiver: ReturnType<typeof Bun.serve>;
  const received: { event: string }[] = [];
  const problems: string[] = [];
  const state = { projectId: "", sandboxKey: "", videoId: "" };

  beforeAll(async () => {
    receiver = Bun.serve({
      port: 0, hostname: "127.0.0.1",
      async fetch(req) {
        received.push((await req.json()) as { event: string });
        return new Response("ok");
      },
    });
    [clip, app, browser] = await Promise.all([
      makeClip({ width: 320, height: 180, seconds: 3 }),
      // The sandbox listener's per-minute limits are not what this suite is about.
      startTestAppliance({ env: { VIDHOST_RATE_LIMITS: "sandbox.reads=100000,sandbox.writes=100000,sandbox.uploads=100000" } }),
      launchBrowser(),
    ]);
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !/status of 4\d\d/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    receiver?.stop(true);
  });

  const go = async (hash: string) => {
    await page.goto(`${app.urls.admin}/${hash}`);
  };
  /** Waits for a locator, failing with what the page shows instead. */
  const shows = (locator: ReturnType<Page["locator"]>, timeout = 30_000) =>
    locator.waitFor({ timeout }).catch(async (err: Error) => {
      throw new Error(`${err.message.split("\n")[0]}; the page shows: ${await page.locator("#app").innerText().catch(() => "?")}`);
    });
  const adminJson = async <T>(method: string, path: string, body?: unknown) => (await (await app.admin(method, path, body)).json()) as T;

  test("the sign-in page refuses a wrong key and signs in with the admin key", async () => {
    await page.goto(app.urls.admin + "/");
    await page.getByLabel("Admin key").fill("not-the-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "admin key is wrong" }).waitFor();
    await screenshot(page, "dashboard-signin");
    await page.getByLabel("Admin key").fill(app.adminKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Projects" }).waitFor();
    const [cookie] = (await context.cookies()).filter((c) => c.name === "vidhost_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    expect(cookie.value).not.toContain(app.adminKey);
    // The script cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain("vidhost_session");
    await page.getByTestId("projects-table").getByText("Default project").waitFor();
    await screenshot(page, "dashboard-projects");
  });

  test("creates a project and enables production", async () => {
    await page.getByLabel("Project name").fill("Browser project");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByTestId("project-name").filter({ hasText: "Browser project" }).waitFor();
    state.projectId = decodeURIComponent(/#\/projects\/([^/]+)/.exec(page.url())![1]);
    expect((await adminJson<{ production_enabled: boolean }>("GET", `/projects/${state.projectId}`)).production_enabled).toBe(false);
    await page.getByTestId("enable-production").click();
    await page.getByText("Production enabled").first().waitFor();
    expect((await adminJson<{ production_enabled: boolean; name: string }>("GET", `/projects/${state.projectId}`))).toMatchObject({ production_enabled: true, name: "Browser project" });
    // Rename and schedule the deletion, then cancel it: each goes through the admin API.
    await page.getByTestId("rename-project").getByLabel("Project name").fill("Browser project 2");
    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByTestId("project-name").filter({ hasText: "Browser project 2" }).waitFor();
    await page.getByTestId("schedule-deletion").click();
    await page.getByTestId("schedule-deletion-confirm").click();
    await page.getByTestId("deletion-scheduled").waitFor();
    expect((await adminJson<{ deletes_at: string | null }>("GET", `/projects/${state.projectId}`)).deletes_at).toMatch(/^\d{4}-\d\d-01T00:00:00\+00:00$/);
    await screenshot(page, "dashboard-project-settings");
    await page.getByTestId("cancel-deletion").click();
    await page.getByTestId("schedule-deletion").waitFor();
    expect((await adminJson<{ deletes_at: string | null }>("GET", `/projects/${state.projectId}`)).deletes_at).toBeNull();
  });

  test("creates a sandbox key, shows it once, and the key works on the sandbox API", async () => {
    await go(`#/projects/${state.projectId}/sandbox/keys`);
    await page.getByTestId("create-key").getByLabel("Key name").fill("browser key");
    await page.getByRole("button", { name: "Create key" }).click();
    const value = await page.getByTestId("new-key-value").inputValue();
    expect(value).toMatch(/^[0-9A-Za-z]{43}$/);
    state.sandboxKey = value;
    const row = page.getByTestId("keys-table").locator("tr", { hasText: "browser key" });
    // The list shows it masked; the full value only in the one-time box, with its Copy button.
    await shows(row.locator("code", { hasText: `${value.slice(0, 4)}${"*".repeat(39)}` }));
    await shows(page.getByTestId("new-key").getByRole("button", { name: "Copy" }));
    expect(await page.getByTestId("keys-table").innerText()).not.toContain(value);
    await screenshot(page, "dashboard-keys");

    const res = await fetch(`${app.urls.sandbox}/videos`, { headers: { authorization: basic(value) } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toEqual([]);
    // A sandbox key is still refused on the production listener.
    expect((await fetch(`${app.urls.production}/videos`, { headers: { authorization: basic(value) } })).status).toBe(401);

    // Rename it from the list.
    await row.getByRole("button", { name: "Rename" }).click();
    await page.getByTestId("rename-key").getByLabel("Key name").fill("browser key renamed");
    await page.getByTestId("rename-key").getByRole("button", { name: "Save" }).click();
    await page.getByTestId("keys-table").getByText("browser key renamed").waitFor();
  });

  test("adds a webhook from the dashboard", async () => {
    await go(`#/projects/${state.projectId}/sandbox/webhooks`);
    await page.getByLabel("Webhook URL").fill(`http://127.0.0.1:${receiver.port}/hook`);
    await page.getByRole("button", { name: "Add webhook" }).click();
    await page.getByTestId("webhooks").getByText(`http://127.0.0.1:${receiver.port}/hook`).waitFor();
    const hooks = await (await app.api(state.sandboxKey, "GET", "/webhooks")).json() as { data: { events: string[] }[] };
    expect(hooks.data.map((h) => h.events)).toEqual([["video.encoding.quality.completed"]]);
  });

  test("uploads a clip from the browser and watches it become playable", async () => {
    await go(`#/projects/${state.projectId}/sandbox/videos`);
    await page.getByTestId("upload-file").setInputFiles(clip);
    await page.getByTestId("upload-start").click();
    await shows(page.getByTestId("upload-status").filter({ hasText: "uploaded; encoding has started" }));
    expect(await page.getByTestId("upload-progress").evaluate((p) => (p as HTMLProgressElement).value)).toBe(1);
    const card = page.locator(".video-card").first();
    state.videoId = (await card.getAttribute("data-video-id"))!;
    // The list polls by itself until every quality is encoded.
    await card.locator('[data-status="encoded"][data-quality^="hls-"]').first().waitFor({ timeout: 60_000 });
    await card.getByText("Ready").waitFor({ timeout: 60_000 });
    await card.locator("img").waitFor();
    await waitFor("the thumbnail to load", () => card.locator("img").evaluate((img) => (img as HTMLImageElement).naturalWidth > 0));
    await screenshot(page, "dashboard-videos");

    const status = await (await app.api(state.sandboxKey, "GET", `/videos/${state.videoId}/status`)).json() as { encoding: { playable: boolean; qualities: { status: string }[] } };
    expect(status.encoding.playable).toBe(true);
    expect(status.encoding.qualities.every((q) => q.status === "encoded")).toBe(true);

    await card.locator(".video-title").click();
    const frame = await waitFor("the player frame", () => page.frames().find((f) => f.url().includes(`/vod/${state.videoId}`)));
    await playInFrame(frame);
    await page.getByTestId("video-status").getByText("Ready").waitFor();
    await screenshot(page, "dashboard-video");
  });

  /** Starts the player page in its iframe and waits for its clock to move. */
  async function playInFrame(frame: Frame) {
    await frame.waitForSelector("video");
    await frame.evaluate(() => {
      const v = document.querySelector("video") as HTMLVideoElement;
      v.muted = true;
      return v.play().catch(() => undefined);
    });
    await waitFor("playback in the dashboard's player", () => frame.evaluate(() => (document.querySelector("video") as HTMLVideoElement).currentTime > 0.5), 30_000, 100);
  }

  test("the webhook's deliveries show their event, attempts and status codes", async () => {
    await waitFor("a delivered webhook", () => received.length > 0);
    await go(`#/projects/${state.projectId}/sandbox/webhooks`);
    const deliveries = page.getByTestId("deliveries");
    await deliveries.waitFor();
    await deliveries.getByText("video.encoding.quality.completed").first().waitFor();
    await deliveries.locator("code", { hasText: "200" }).first().waitFor();
    await deliveries.getByText("delivered").first().waitFor();
    await screenshot(page, "dashboard-webhooks");
  });

  test("usage shows the stored and delivered minutes as charts", async () => {
    const day = new Date().toISOString().slice(0, 10);
    const hosting = await adminJson<{ items: { collected_on: string; video_duration_minutes: number }[] }>("GET", `/projects/${state.projectId}/hosting-usage?interval=week&environment=sandbox`);
    expect(hosting.items.at(-1)).toMatchObject({ collected_on: day });
    expect(hosting.items.at(-1)!.video_duration_minutes).toBeCloseTo(3 / 60, 1);
    const delivery = await waitFor("delivered minutes", async () => {
      const d = await adminJson<{ items: { video_hls_duration_minutes: number }[] }>("GET", `/projects/${state.projectId}/delivery-usage?interval=week`);
      return d.items.at(-1)!.video_hls_duration_minutes > 0 ? d : null;
    });
    expect(delivery.items).toHaveLength(7);
    await go(`#/projects/${state.projectId}/sandbox/usage`);
    const charts = page.getByTestId("usage-charts");
    await charts.locator("svg").nth(1).waitFor();
    expect(await charts.locator("svg rect.bar").count()).toBeGreaterThanOrEqual(2);
    await page.getByRole("button", { name: "7 days" }).click();
    await waitFor("a 7-day chart", async () => (await charts.locator("svg").first().locator("g").count()) === 7);
    await screenshot(page, "dashboard-usage");
  });

  test("the live page gives the RTMP details to copy, shows broadcasting and a live preview", async () => {
    await go(`#/projects/${state.projectId}/sandbox/live`);
    const form = page.getByTestId("create-live");
    await shows(form);
    await form.getByLabel("Live stream name").fill("Browser live");
    await form.getByRole("button", { name: "Create" }).click();
    const card = page.locator(".live-card", { hasText: "Browser live" });
    await shows(card);
    const key = await card.getByTestId("stream-key").inputValue();
    expect(key.length).toBeGreaterThan(8);
    const url = `${app.ctx.urls.rtmp}/s/${key}`;
    expect(await card.locator("input").evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toContain(url);
    await shows(card.getByText("Offline"));
    await screenshot(page, "dashboard-live");

    // A real broadcaster pushes to the URL the page gave; the page sees it go live by itself.
    const publisher = publish(url, 25);
    try {
      await shows(card.getByText("● Live"), 30_000);
      const preview = await waitFor("the live preview frame", () => page.frames().find((f) => f.url().includes("/live/")));
      await playInFrame(preview);
      // The page keeps polling the stream's state; an unchanged stream keeps its preview playing.
      await page.waitForRequest((r) => r.url().includes("/live-streams?"), { timeout: 15_000 });
      await page.waitForResponse((r) => r.url().includes("/live-streams?"));
      expect(preview.isDetached()).toBe(false);
      expect(await preview.evaluate(() => (document.querySelector("video") as HTMLVideoElement).currentTime)).toBeGreaterThan(0.5);
      await screenshot(page, "dashboard-live-broadcasting");
    } finally {
      publisher.proc.kill();
      await publisher.exited;
    }
  });

  test("revoking the key in the dashboard makes the sandbox API refuse it at once", async () => {
    const before = await fetch(`${app.urls.sandbox}/videos`, { headers: { authorization: basic(state.sandboxKey) } });
    expect(before.status).toBe(200);
    await go(`#/projects/${state.projectId}/sandbox/keys`);
    const row = page.getByTestId("keys-table").locator("tr", { hasText: "browser key renamed" });
    await row.getByTestId("revoke-key").click();
    await row.getByTestId("revoke-key-confirm").click();
    await row.waitFor({ state: "detached" });
    const after = await fetch(`${app.urls.sandbox}/videos`, { headers: { authorization: basic(state.sandboxKey) } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { type: string }).type).toEndWith("/authentication-invalid-api-key");
  });

  test("a file over one chunk goes up in several byte ranges with a moving progress bar", async () => {
    const large = await makeLargeClip(9 * 1024 * 1024, { width: 320, height: 180 });
    const ranges: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/source")) ranges.push(r.headers()["content-range"] ?? "");
    });
    await go(`#/projects/${state.projectId}/sandbox/videos`);
    await page.getByTestId("upload-file").setInputFiles(large);
    await page.getByTestId("upload-start").click();
    await page.getByTestId("upload-status").filter({ hasText: "uploaded; encoding has started" }).waitFor({ timeout: 60_000 });
    const size = Bun.file(large).size;
    expect(ranges).toEqual([`bytes 0-${8 * 1024 * 1024 - 1}/${size}`, `bytes ${8 * 1024 * 1024}-${size - 1}/${size}`]);
    const card = page.locator(".video-card", { has: page.locator(".video-title", { hasText: /^large$/ }) });
    await shows(card.getByTestId("video-state").getByText(/Processing|Playable|Ready/));
  });

  test("phone-sized pages fit the screen", async () => {
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    const pages: [string, string, string][] = [
      ["#/projects", "dashboard-phone-projects", "projects-table"],
      [`#/projects/${state.projectId}/sandbox/videos`, "dashboard-phone-videos", "videos"],
      [`#/projects/${state.projectId}/sandbox/keys`, "dashboard-phone-keys", "create-key"],
      [`#/projects/${state.projectId}/sandbox/usage`, "dashboard-phone-usage", "usage-charts"],
      [`#/projects/${state.projectId}/sandbox/webhooks`, "dashboard-phone-webhooks", "webhooks"],
    ];
    for (const [hash, name, testId] of pages) {
      await phone.goto(`${app.urls.admin}/${hash}`);
      await phone.getByTestId(testId).waitFor();
      await phone.waitForLoadState("networkidle");
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
      await screenshot(phone, name);
    }
    await phone.close();
  });

  test("signing out ends the session", async () => {
    await go("#/projects");
    await page.getByTestId("sign-out").click();
    await page.getByLabel("Admin key").waitFor();
    expect((await context.cookies()).filter((c) => c.name === "vidhost_session" && c.value)).toEqual([]);
    const res = await page.evaluate(async () => (await fetch("/projects")).status);
    expect(res).toBe(401);
    expect(problems).toEqual([]);
  });
});
