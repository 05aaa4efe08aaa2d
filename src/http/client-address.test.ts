import { expect, test } from "bun:test";
import { clientAddress, rateLimitedAddress } from "./client-address";

const req = (forwarded?: string) => new Request("http://x/", { headers: forwarded ? { "x-forwarded-for": forwarded } : {} });
const loopback = new Set(["127.0.0.1", "::1"]);

test("an untrusted socket is the client, whatever X-Forwarded-For says", () => {
  expect(clientAddress(req("1.2.3.4"), "::ffff:198.51.100.7", loopback)).toBe("198.51.100.7");
  expect(clientAddress(req("1.2.3.4"), "127.0.0.1", new Set())).toBe("127.0.0.1");
});

test("behind a trusted proxy, the last hop (the one the proxy added) is the client", () => {
  expect(clientAddress(req("1.2.3.4, 198.51.100.8"), "127.0.0.1", loopback)).toBe("198.51.100.8");
  expect(clientAddress(req(" 198.51.100.9 "), "::ffff:10.0.0.2", new Set(["10.0.0.2"]))).toBe("198.51.100.9");
});

test("a trusted proxy that forwards nothing stands for itself; an unknown socket stays unknown", () => {
  expect(clientAddress(req(), "::1", loopback)).toBe("::1");
  expect(clientAddress(req(""), "127.0.0.1", loopback)).toBe("127.0.0.1");
  expect(clientAddress(req("203.0.113.4"), "", loopback)).toBe("");
});

test("per-address limits count IPv4 addresses one by one and IPv6 addresses by their /64", () => {
  expect(rateLimitedAddress("198.51.100.7")).toBe("198.51.100.7");
  expect(rateLimitedAddress("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
  expect(rateLimitedAddress("2001:0DB8:0001:0002:ffff:ffff:ffff:fffe")).toBe("2001:db8:1:2::/64");
  expect(rateLimitedAddress("2001:db8::1")).toBe("2001:db8:0:0::/64");
  expect(rateLimitedAddress("::1")).toBe("0:0:0:0::/64");
  expect(rateLimitedAddress("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  expect(rateLimitedAddress("")).toBe("");
});
