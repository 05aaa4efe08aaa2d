// Which IP addresses an outbound request on a user's behalf may connect to (`source` URL imports,
// webhook deliveries). Anything that reaches the machine itself, its networks or a cloud metadata
// service is refused (SSRF), unless the feature's *_ALLOW_PRIVATE setting is on. guardedLookup is
// the node:http(s) `lookup` hook (Bun honours it) that enforces this at connect time.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIPv4, isIPv6, type LookupFunction } from "node:net";

/** [first address as a 32-bit number, prefix length, what the range is] */
type V4Range = [number, number, string];

const v4 = (dotted: string): number => dotted.split(".").reduce((n, part) => n * 256 + Number(part), 0);

// Metadata services live inside these too: 169.254.169.254 (AWS, GCP, Azure, …) in link-local,
// 100.100.100.200 (Alibaba) in CGNAT, 192.0.0.192 (Oracle) in the IETF block.
const V4_BLOCKED: V4Range[] = [
  [v4("0.0.0.0"), 8, "unspecified"],
  [v4("10.0.0.0"), 8, "private"],
  [v4("100.64.0.0"), 10, "carrier-grade NAT"],
  [v4("127.0.0.0"), 8, "loopback"],
  [v4("169.254.0.0"), 16, "link-local"],
  [v4("172.16.0.0"), 12, "private"],
  [v4("192.0.0.0"), 24, "reserved"],
  [v4("192.0.2.0"), 24, "documentation"],
  [v4("192.168.0.0"), 16, "private"],
  [v4("198.18.0.0"), 15, "benchmarking"],
  [v4("198.51.100.0"), 24, "documentation"],
  [v4("203.0.113.0"), 24, "documentation"],
  [v4("224.0.0.0"), 4, "multicast"],
  [v4("240.0.0.0"), 4, "reserved"],
];

function classifyV4(n: number): string | null {
  for (const [base, bits, what] of V4_BLOCKED) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === base) return what;
  }
  return null;
}

/** The eight 16-bit groups of a valid IPv6 address (dotted IPv4 tails included). */
export function ipv6Groups(ip: string): number[] {
  let text = ip.replace(/%.*$/, "").toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4(dotted[1]);
    text = text.slice(0, dotted.index) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const parse = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === null ? [] : parse(tail);
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

const embeddedV4 = (g: number[], at: number) => ((g[at] << 16) >>> 0) + g[at + 1];

function classifyV6(g: number[]): string | null {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) reach an IPv4 address.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyV4(embeddedV4(g, 6));
  if (zeroUpTo(6)) return classifyV4(embeddedV4(g, 6));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyV4(embeddedV4(g, 6));
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "local NAT64";
  // 6to4 (2002:AABB:CCDD::) carries an IPv4 address in its second and third groups.
  if (g[0] === 0x2002) return classifyV4(embeddedV4(g, 1));
  if (g[0] === 0x2001 && g[1] === 0) return "Teredo";
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "documentation";
  if (g[0] === 0x100 && g.slice(1, 4).every((x) => x === 0)) return "discard";
  if ((g[0] & 0xfe00) === 0xfc00) return "unique-local"; // includes fd00:ec2::254, AWS's IPv6 metadata
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "site-local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  return null;
}

/**
 * Why a request must not connect to `ip` (e.g. "loopback", "private"), or null for a public
 * address. `ip` is an address literal (IPv6 with or without brackets); anything else is "invalid".
 */
export function blockedAddress(ip: string): string | null {
  const bare = ip.startsWith("[") && ip.endsWith("]") ? ip.slice(1, -1) : ip;
  if (isIPv4(bare)) return classifyV4(v4(bare));
  if (isIPv6(bare)) return classifyV6(ipv6Groups(bare));
  return "invalid";
}

/** True when `host` (a URL's hostname) is an IP literal rather than a name to resolve. */
export function isAddressLiteral(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return isIPv4(bare) || isIPv6(bare);
}

/**
 * Why a URL's hostname is internal on its face, without resolving it: a blocked address literal, or
 * `localhost` and its subdomains (RFC 6761 keeps them on loopback). Null for anything else.
 */
export function internalHostName(hostname: string): string | null {
  if (isAddressLiteral(hostname)) return blockedAddress(hostname);
  return /(^|\.)localhost\.?$/i.test(hostname) ? "loopback" : null;
}

/**
 * No connection was made to `host`: it is a blocked address literal, a name resolving only to
 * blocked addresses (`why` says what they are), or a name that did not resolve (`why` null).
 */
export class RefusedHostError extends Error {
  constructor(readonly host: string, readonly why: string | null, readonly code?: string) {
    super(!why ? `The host name ${host} could not be resolved (${code}).`
      : isAddressLiteral(host) ? `The address ${host} is a ${why} address.`
      : `The host name ${host} resolves to a ${why} address.`);
    this.name = "RefusedHostError";
  }
}

/**
 * A node:http(s) `lookup` hook: resolves once and hands the socket only addresses that passed the
 * check, so a DNS answer that changes between a check and the connect (rebinding) cannot reach an
 * internal address. Address literals never reach a lookup hook: check those before connecting.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return ((host: string, options: { all?: boolean }, callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(host, { all: true }, (err, addresses) => {
      if (err) return callback(new RefusedHostError(host, null, err.code ?? err.message), []);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => blockedAddress(a.address) === null);
      if (!allowed.length) return callback(new RefusedHostError(host, blockedAddress(addresses[0]?.address ?? "") ?? "unknown"), []);
      if (options?.all) callback(null, allowed);
      else callback(null, allowed[0].address, allowed[0].family);
    });
  }) as LookupFunction;
}
