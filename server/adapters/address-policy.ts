// Which IP addresses the server may connect to on a customer's behalf (webhooks, messenger
// forwarding, any outbound HTTP). Classification is ipaddr.js's table of special-purpose ranges
// (IANA registries), not a list of ranges we happened to think of: only global unicast passes.
// IPv6 forms that carry an IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo)
// are judged by the IPv4 address they carry, so `::ffff:127.0.0.1` is loopback like 127.0.0.1.
import ipaddr from "ipaddr.js";

export type AddressVerdict =
  | { allowed: true }
  | { allowed: false; reason: string };

export interface AddressPolicy {
  /** The development flag: loopback addresses (and only those) are allowed too. */
  allowLoopback?: boolean;
  /**
   * Loopback addresses only (plain http:// under the development flag: the flag allows
   * unencrypted posts to this machine, not to any host on the internet).
   */
  onlyLoopback?: boolean;
}

// Special-purpose ranges whose addresses are globally reachable (IANA marks them so): anycast
// services anyone may use, not somebody's internal network.
const GLOBAL_V4 = new Set(["unicast", "as112", "amt"]);
const GLOBAL_V6 = new Set(["unicast", "as112v6", "amt"]);

/** True when `text` is an IP address in any spelling ipaddr.js accepts (hex, octal, short IPv4 too). */
export function isIpLiteral(text: string): boolean {
  return ipaddr.isValid(stripBrackets(text));
}

/** Judges one address. Anything that does not parse as an IP address is refused. */
export function checkAddress(text: string, policy: AddressPolicy = {}): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(canonical(stripBrackets(text)));
  } catch {
    return { allowed: false, reason: `${text} is not an IP address` };
  }
  const range = classify(parsed);
  if (range === "global") return policy.onlyLoopback ? { allowed: false, reason: `${text} is not a loopback address (plain http:// goes to loopback only)` } : { allowed: true };
  if (range === "loopback" && (policy.allowLoopback || policy.onlyLoopback)) return { allowed: true };
  return { allowed: false, reason: `${text} is a ${range} address` };
}

export function isPublicAddress(text: string): boolean {
  return checkAddress(text).allowed;
}

/** "global" or the name of the non-public range the address (or the IPv4 address it embeds) is in. */
function classify(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  if (address.kind() === "ipv4") {
    const range = (address as ipaddr.IPv4).range();
    return GLOBAL_V4.has(range) ? "global" : range;
  }
  const v6 = address as ipaddr.IPv6;
  if (v6.zoneId) return "scoped (zone index)";
  const embedded = embeddedIPv4(v6);
  if (typeof embedded === "string") return embedded;
  if (embedded) return classify(embedded);
  const range = v6.range();
  return GLOBAL_V6.has(range) ? "global" : range;
}

/**
 * The IPv4 address an IPv6 address stands for; undefined when it carries none; the name of the
 * range when it is an IPv4-carrying form refused whatever it carries.
 */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | string | undefined {
  const p = v6.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  switch (v6.range()) {
    case "ipv4Mapped": // ::ffff:a.b.c.d, what dual-stack sockets use for IPv4 peers
    case "rfc6145": // ::ffff:0:a.b.c.d, IPv4-translated (SIIT)
      return v4(p[6], p[7]);
    case "rfc6052": // NAT64: 64:ff9b::a.b.c.d reaches a.b.c.d; 64:ff9b:1::/48 is for local use only
      return p[2] === 0 ? v4(p[6], p[7]) : "local-use NAT64";
    case "6to4": // 2002:AABB:CCDD::/48 is the site behind a.b.c.d
      return v4(p[1], p[2]);
    case "teredo": { // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, the client address inverted
      const server = classify(v4(p[2], p[3]));
      const client = v4(p[6] ^ 0xffff, p[7] ^ 0xffff);
      return server === "global" ? client : v4(p[2], p[3]);
    }
    case "unicast":
      // ::a.b.c.d, IPv4-compatible (deprecated by RFC 4291 and not routable): refused outright.
      if (p.slice(0, 6).every((x) => x === 0)) return "IPv4-compatible";
      return undefined;
    default:
      return undefined;
  }
}

// ipaddr.js reads any IPv6 text ending in a dotted quad as IPv4-mapped (`::8.8.8.8` comes out as
// `::ffff:8.8.8.8`), but inet_ntop writes IPv4-compatible addresses that way. The WHATWG URL
// parser turns the text into the 8 groups it denotes first; a zone index is kept aside for it.
function canonical(text: string): string {
  if (!text.includes(":")) return text;
  const [address, zone] = text.split("%", 2);
  const groups = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  return zone === undefined ? groups : `${groups}%${zone}`;
}

function stripBrackets(text: string): string {
  return text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
}
