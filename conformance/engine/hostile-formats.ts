// Formatted strings drawn the way a hostile client writes them, beside the tame ones: URLs whose
// host is an IP literal in a reserved range (10.0.0.1, 169.254.169.254, [::1], 0, 2130706433), an
// odd port, credentials, an IDN; host names that are addresses or `localhost`; e-mail addresses at
// IP hosts. Every value is valid for its format (formats.test.ts), so a server that refuses one has
// a rule its contract does not state (issue 39 item 8: `https://10.0.0.1/hook` matched the
// platform's `format: uri` and pattern, and the server refused it; the tame `https://example.test/x`
// never found that in a thousand draws).
import fc from "fast-check";

const RESERVED_V4 = ["0.0.0.0", "127.0.0.1", "10.0.0.1", "169.254.169.254", "192.168.0.1", "172.16.0.1", "100.64.0.1", "255.255.255.255", "8.8.8.8"];
const RESERVED_V6 = ["::", "::1", "fe80::1", "::ffff:127.0.0.1", "64:ff9b::a00:1", "2001:db8::1", "fc00::1"];
/** Hosts of a URL as RFC 3986 allows them: IPv4 in other spellings, IPv6 literals, names. */
const URL_HOSTS = [
  ...RESERVED_V4, "0", "2130706433", "0x7f.1", "127.1", "localhost", "LOCALHOST", "metadata.google.internal",
  "xn--bcher-kva.example", "example.test.", ...RESERVED_V6.map((a) => `[${a}]`),
];
const HOSTNAMES = ["localhost", "10.0.0.1", "127.0.0.1", "0", "xn--bcher-kva.example", "metadata.google.internal", "example.test.", "LOCALHOST", "a.b.c.d.e.f.test"];
const PORTS = ["", "", ":0", ":1", ":8080", ":65535"];
const LOCAL_PARTS = ["a", "first.last", "user+tag", "o'brien", "UPPER", "x_y-z"];
const EMAIL_HOSTS = ["10.0.0.1", "127.0.0.1", "localhost.localdomain", "xn--bcher-kva.example", "example.test"];
const tail = fc.constantFrom("/", "/hook", "/a/b?x=1", "/?q=%20", "/#frag", "/%2e%2e/admin", "");

const hostileUri = (hosts: string[]) =>
  fc.tuple(fc.constantFrom("https", "https", "http", "HTTPS"), fc.constantFrom("", "", "", "user:pass@", "user@"), fc.constantFrom(...hosts), fc.constantFrom(...PORTS), tail).map(
    ([scheme, userinfo, host, port, rest]) => `${scheme}://${userinfo}${host}${port}${rest}`,
  );

/** Hostile values of a format, or undefined for formats where none are drawn. */
export function hostileFormat(format: string): fc.Arbitrary<string> | undefined {
  switch (format) {
    case "uri":
    case "url":
    case "uri-reference":
      return hostileUri(URL_HOSTS);
    case "iri":
    case "iri-reference":
      return hostileUri([...URL_HOSTS, "bücher.example", "例え.テスト"]);
    case "hostname":
      return fc.constantFrom(...HOSTNAMES);
    case "idn-hostname":
      return fc.constantFrom(...HOSTNAMES, "bücher.example", "例え.テスト");
    case "email":
      return fc.tuple(fc.constantFrom(...LOCAL_PARTS), fc.constantFrom(...EMAIL_HOSTS)).map(([l, h]) => `${l}@${h}`);
    case "idn-email":
      return fc.tuple(fc.constantFrom(...LOCAL_PARTS, "jörg"), fc.constantFrom(...EMAIL_HOSTS, "bücher.example")).map(([l, h]) => `${l}@${h}`);
    case "ipv4":
      return fc.constantFrom(...RESERVED_V4);
    case "ipv6":
      return fc.constantFrom(...RESERVED_V6);
    default:
      return undefined;
  }
}
