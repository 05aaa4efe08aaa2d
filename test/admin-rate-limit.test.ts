// The admin API's limit: 10 requests per second per admin key, a JSON 429 with Retry-After beyond it,
// a fresh budget the next second; failed authentications share a budget. Sessions: src/dashboard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { basic, startTestAppliance, type TestAppliance } from "./helpers";

let app: TestAppliance;
// A frozen clock: every request of a burst falls in the same one-second window.
const now = { ms: Date.parse("2026-11-21T10:00:00.250Z") };
const clock = { now: () => new Date(now.ms) };

beforeAll(async () => {
  app = await startTestAppliance({ clock });
});
afterAll(() => app.close());

const get = (authorization: string) => fetch(`${app.urls.admin}/projects/count`, { headers: { authorization } });

describe("admin rate limit", () => {
  test("the 11th request in a second is refused with 429, Retry-After and a JSON body; the next second is fresh", async () => {
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await get(basic(app.adminKey));
      statuses.push(res.status);
      remaining.push(res.headers.get("x-ratelimit-remaining")!);
      expect(res.headers.get("x-ratelimit-limit")).toBe("10");
    }
    expect(statuses).toEqual(Array(10).fill(200));
    expect(remaining).toEqual(["9", "8", "7", "6", "5", "4", "3", "2", "1", "0"]);

    const refused = await get(basic(app.adminKey));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(refused.headers.get("content-type")).toBe("application/json");
    expect(await refused.json()).toMatchObject({ status: 429, title: "Too many requests.", type: expect.stringMatching(/\/reference\/too-many-requests$/) });
    // Every admin route shares the key's budget, whatever its method.
    expect((await app.admin("POST", "/projects", { name: "over" })).status).toBe(429);

    now.ms += 1000;
    expect((await get(basic(app.adminKey))).status).toBe(200);
  });

  test("guessing the admin key is limited too: failed attempts share one budget", async () => {
    now.ms += 1000;
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await get(basic(`guess-${i}`))).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    // The right key is not held back by someone else's guesses.
    expect((await get(basic(app.adminKey))).status).toBe(200);
  });
});
