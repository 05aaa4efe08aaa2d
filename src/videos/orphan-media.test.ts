// The sweep of media left by videos that no longer exist: what it removes, and what it must leave
// (a video's files, a recording being joined under its reserved video id, other folders).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { liveBroadcasts } from "../db/schema";
import { startTestAppliance, type TestAppliance } from "../../test/helpers";
import { videoKey } from "./service";
import { sweepOrphanVideoMedia } from "./orphan-media";

let app: TestAppliance;
beforeAll(async () => {
  app = await startTestAppliance();
});
afterAll(() => app.close());

test("removes only the folders of video ids with no row and no recording reserving them", async () => {
  const { projectId } = app;
  const created = await app.api(app.sandboxKey, "POST", "/videos", { title: "kept" });
  const { videoId } = (await created.json()) as { videoId: string };
  const at = (id: string) => ({ projectId, environment: "sandbox" as const, id });
  const storage = app.ctx.storage;
  await storage.put(videoKey(at(videoId), "source"), "a video's source");
  // A crash between deleting a row and its files left this one.
  await storage.put(videoKey(at("vi0rphan000000000000000"), "hls", "240p", "index.m3u8"), "#EXTM3U");
  // A recording being joined: its video id is reserved by the broadcast, the row comes after.
  await storage.put(videoKey(at("vi0recording0000000000"), "source"), "joining");
  app.ctx.db.insert(liveBroadcasts).values({
    id: "br0000000000000000000000", liveStreamId: "li0000000000000000000000", projectId, environment: "sandbox",
    state: "finalizing", part: 1, startedAt: new Date().toISOString(), videoId: "vi0recording0000000000",
  }).run();
  // Not a video's folder: live streams live beside videos.
  await storage.put([projectId, "sandbox", "live", "li0000000000000000000000", "picture.jpg"], "jpeg");

  expect(await sweepOrphanVideoMedia(app.ctx)).toBe(1);
  expect(storage.children([projectId, "sandbox", "videos"]).sort()).toEqual([videoId, "vi0recording0000000000"].sort());
  expect(storage.size([projectId, "sandbox", "live", "li0000000000000000000000", "picture.jpg"])).toBe(4);
  expect(await sweepOrphanVideoMedia(app.ctx)).toBe(0);
});
