// KeyCache in isolation: loads once, remembers only what exists, expires tokens, forgets on invalidation.
import { describe, expect, test } from "bun:test";
import { KeyCache, type CachedKey } from "./key-cache";

const key = (id: string, projectId = "project_a"): CachedKey => ({ id, projectId, environment: "sandbox" });

describe("keys", () => {
  test("a hit does not load again; a miss that finds nothing is not remembered", () => {
    const cache = new KeyCache();
    let loads = 0;
    const load = () => (loads++, key("api_key_1"));
    expect(cache.key("h1", load)).toEqual(key("api_key_1"));
    expect(cache.key("h1", load)).toEqual(key("api_key_1"));
    expect(loads).toBe(1);
    let misses = 0;
    expect(cache.key("h2", () => (misses++, undefined))).toBeUndefined();
    expect(cache.key("h2", () => (misses++, undefined))).toBeUndefined();
    expect(misses).toBe(2);
  });

  test("invalidateKey and invalidateProject make the next lookup load again", () => {
    const cache = new KeyCache();
    let loads = 0;
    const load = () => (loads++, key("api_key_1", "project_a"));
    cache.key("h1", load);
    cache.invalidateKey("api_key_other");
    cache.key("h1", load);
    expect(loads).toBe(1);
    cache.invalidateKey("api_key_1");
    cache.key("h1", load);
    expect(loads).toBe(2);
    cache.invalidateProject("project_a");
    cache.key("h1", load);
    expect(loads).toBe(3);
  });

  test("a full cache forgets its oldest entry", () => {
    const cache = new KeyCache(2);
    let loads = 0;
    const load = (id: string) => () => (loads++, key(id));
    cache.key("h1", load("k1"));
    cache.key("h2", load("k2"));
    cache.key("h3", load("k3"));
    expect(loads).toBe(3);
    cache.key("h3", load("k3"));
    cache.key("h2", load("k2"));
    expect(loads).toBe(3);
    cache.key("h1", load("k1"));
    expect(loads).toBe(4);
  });
});

describe("projects", () => {
  test("state is remembered until the project is invalidated", () => {
    const cache = new KeyCache();
    let productionEnabled = false;
    const load = () => ({ exists: true, productionEnabled });
    expect(cache.project("project_a", load).productionEnabled).toBe(false);
    productionEnabled = true;
    expect(cache.project("project_a", load).productionEnabled).toBe(false);
    cache.invalidateProject("project_a");
    expect(cache.project("project_a", load).productionEnabled).toBe(true);
  });
});

describe("access tokens", () => {
  const token = (expiresAt: number, pairId = "pair_1", k = key("api_key_1")) => ({ key: k, pairId, expiresAt });

  test("a cached token is refused from its expiry on, without asking the database", () => {
    const cache = new KeyCache();
    let loads = 0;
    expect(cache.accessToken("t1", 1000, () => (loads++, token(5000)))?.key.id).toBe("api_key_1");
    expect(cache.accessToken("t1", 4999, () => (loads++, token(5000)))?.key.id).toBe("api_key_1");
    expect(loads).toBe(1);
    expect(cache.accessToken("t1", 5000, () => (loads++, token(5000)))).toBeUndefined();
    expect(loads).toBe(1);
  });

  test("revoking the pair, the key or the project forgets the token", () => {
    const cache = new KeyCache();
    let loads = 0;
    const load = () => (loads++, token(5000));
    const check = (expected: number) => {
      cache.accessToken("t1", 0, load);
      expect(loads).toBe(expected);
    };
    check(1);
    cache.invalidateTokenPair("pair_other");
    check(1);
    cache.invalidateTokenPair("pair_1");
    check(2);
    cache.invalidateKey("api_key_1");
    check(3);
    cache.invalidateProject("project_a");
    check(4);
  });
});

test("two caches share nothing", () => {
  const a = new KeyCache();
  const b = new KeyCache();
  a.key("h1", () => key("api_key_1"));
  expect(b.key("h1", () => undefined)).toBeUndefined();
});

describe("whole Authorization headers", () => {
  const entry = (expiresAt: number, pairId = "", k = key("api_key_1")) => ({ key: k, pairId, expiresAt });

  test("a repeated header does not load again; an expired one loads again (and the load decides)", () => {
    const cache = new KeyCache();
    let loads = 0;
    expect(cache.credential("h1", 0, () => (loads++, entry(Infinity)))?.key.id).toBe("api_key_1");
    expect(cache.credential("h1", 1e15, () => (loads++, entry(Infinity)))?.key.id).toBe("api_key_1");
    expect(loads).toBe(1);
    cache.credential("t1", 1000, () => (loads++, entry(5000, "pair_1")));
    cache.credential("t1", 4999, () => (loads++, entry(5000, "pair_1")));
    expect(loads).toBe(2);
    expect(() => cache.credential("t1", 5000, () => {
      loads++;
      throw new Error("expired");
    })).toThrow("expired");
    expect(loads).toBe(3);
  });

  test("revoking the pair, the key or the project forgets the header", () => {
    const cache = new KeyCache();
    let loads = 0;
    const check = (hash: string, load: () => ReturnType<typeof entry>, expected: number) => {
      cache.credential(hash, 0, () => (loads++, load()));
      expect(loads).toBe(expected);
    };
    const token = () => entry(5000, "pair_1");
    check("t1", token, 1);
    cache.invalidateTokenPair("pair_1");
    check("t1", token, 2);
    const basicKey = () => entry(Infinity, "", key("api_key_2", "project_b"));
    check("b1", basicKey, 3);
    cache.invalidateKey("api_key_1");
    check("b1", basicKey, 3);
    cache.invalidateKey("api_key_2");
    check("b1", basicKey, 4);
    cache.invalidateProject("project_b");
    check("b1", basicKey, 5);
  });
});
