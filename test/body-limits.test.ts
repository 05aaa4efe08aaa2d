// Bodies that are not JSON on routes that take JSON: read within the JSON limit, before
// authentication, and refused (413 beyond 1 MiB, 400 below), instead of being parsed whole by Elysia's
// form, multipart or text parsers first. Routes that stream their body (uploads) are left alone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestAppliance, type TestAppliance } from "./helpers";

let app: TestAppliance;
const OVER = 1024 * 1024 + 1;

beforeAll(async () => {
  app = await startTestAppliance();
});
afterAll(() => app.close());

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
const post = (url: string, body: string | FormData, headers: Record<string, string> = {}) => fetch(url, { method: "POST", headers, body });
const big = (contentType: string): { body: string | FormData; headers: Record<string, string> } => {
  if (contentType === "multipart/form-data") {
    const form = new FormData();
    form.set("title", "x".repeat(OVER));
    return { body: form, headers: {} };
  }
  return { body: contentType === "application/x-www-form-urlencoded" ? `title=${"x".repeat(OVER)}` : "x".repeat(OVER), headers: { "content-type": contentType } };
};

const TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", "application/octet-stream"];

describe.each(TYPES)("a %s body over 1 MiB", (contentType) => {
  test("to the main API is 413, with or without credentials", async () => {
    for (const authorization of [basic(app.sandboxKey), undefined]) {
      const { body, headers } = big(contentType);
      const res = await post(`${app.urls.sandbox}/videos`, body, { ...headers, ...(authorization ? { authorization } : {}) });
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ status: 413, title: "The payload is too large." });
    }
  });

  test("to the admin API and the dashboard's project API is 413", async () => {
    const paths = ["/projects", `/projects/${app.projectId}/environments/sandbox/videos`];
    for (const path of paths) {
      const { body, headers } = big(contentType);
      const res = await post(`${app.urls.admin}${path}`, body, { ...headers, authorization: basic(app.adminKey) });
      expect(res.status).toBe(413);
    }
  });
});

test("a small body that is not JSON is 400 invalid-payload, not parsed as a form", async () => {
  const form = new FormData();
  form.set("title", "From a form");
  const bodies: [string | FormData, Record<string, string>][] = [
    ["title=From+a+form", { "content-type": "application/x-www-form-urlencoded" }],
    [form, {}],
    ['{"title":"From text"}', { "content-type": "text/plain" }],
  ];
  for (const [body, headers] of bodies) {
    const res = await post(`${app.urls.sandbox}/videos`, body, { ...headers, authorization: basic(app.sandboxKey) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: "https://docs.api.video/reference/invalid-payload" });
  }
});

test("a route without a body schema still answers with no body at all", async () => {
  const created = await app.api(app.sandboxKey, "POST", "/live-streams", { name: "body limits" });
  const { liveStreamId } = (await created.json()) as { liveStreamId: string };
  const res = await fetch(`${app.urls.sandbox}/live-streams/${liveStreamId}/complete`, { method: "PUT", headers: { authorization: basic(app.sandboxKey) } });
  expect(res.status).toBe(202);
});
