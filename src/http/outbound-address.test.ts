import { describe, expect, test } from "bun:test";
import { blockedAddress, isAddressLiteral } from "./outbound-address";

describe("blockedAddress: IPv4", () => {
  const table: [string, string | null][] = [
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.63.255.255", null],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.100.100.200", "carrier-grade NAT"],
    ["100.127.255.255", "carrier-grade NAT"],
    ["100.128.0.0", null],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.15.255.255", null],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.0", null],
    ["192.0.0.192", "reserved"],
    ["192.0.2.7", "documentation"],
    ["192.167.255.255", null],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["224.0.0.251", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["1.1.1.1", null],
    ["8.8.8.8", null],
    ["93.184.216.34", null],
    ["223.255.255.255", null],
  ];
  for (const [ip, why] of table) test(`${ip} → ${why}`, () => expect(blockedAddress(ip)).toBe(why));
});

describe("blockedAddress: IPv6", () => {
  const table: [string, string | null][] = [
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.1.2.3", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:8.8.8.8", null],
    ["::127.0.0.1", "loopback"],
    ["64:ff9b::192.168.0.1", "private"],
    ["64:ff9b::8.8.8.8", null],
    ["64:ff9b:1::1", "local NAT64"],
    ["2002:7f00:1::", "loopback"],
    ["2002:0808:0808::1", null],
    ["2001:0:4136:e378::1", "Teredo"],
    ["2001:db8::1", "documentation"],
    ["100::1", "discard"],
    ["fc00::1", "unique-local"],
    ["fd00:ec2::254", "unique-local"],
    ["fdff:ffff::1", "unique-local"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["ff05::1:3", "multicast"],
    ["2606:4700:4700::1111", null],
    ["2a00:1450:4007:80e::200e", null],
    ["2001:4860:4860::8888", null],
  ];
  for (const [ip, why] of table) test(`${ip} → ${why}`, () => expect(blockedAddress(ip)).toBe(why));
});

test("names are not addresses", () => {
  expect(blockedAddress("localhost")).toBe("invalid");
  expect(isAddressLiteral("localhost")).toBe(false);
  expect(isAddressLiteral("[::1]")).toBe(true);
  expect(isAddressLiteral("10.0.0.1")).toBe(true);
});
