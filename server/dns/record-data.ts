// Per-type parsing of the `data` field. Each parser either returns the wire form
// (what dns-packet encodes) or a message; validation and the wire server share them,
// so a record that passed validation is always servable.
import { isIPv4, isIPv6 } from "node:net";
import { canonicalName, hostNameProblem } from "./names.ts";

export const DNS_RECORD_TYPES = ["A", "AAAA", "TXT", "MX", "CNAME", "NS", "SRV", "CAA"] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

export interface SrvData {
  priority: number;
  weight: number;
  port: number;
  target: string;
}

export interface CaaData {
  flags: number;
  tag: "issue" | "issuewild" | "iodef";
  value: string;
}

// Characters, as JSON Schema counts them (code points). Generous for DKIM keys (a 4096-bit key is
// about 800 characters); served as UTF-8 in 255-byte character-strings.
export const MAX_TXT_CHARS = 4096;
const MAX_CAA_CHARS = 4096;
const CAA_TAGS = ["issue", "issuewild", "iodef"];
// Printable means no C0 control characters and no DEL; other Unicode text is accepted
// and served as UTF-8 bytes.
const CONTROL = /[\u0000-\u001f\u007f]/;

// The syntax below is the contract's (spec/dns/dns-record.tsp), which the HTTP layer checks first;
// record-syntax.test.ts proves both agree on every value, so what the API admits always parses.

function fail<T>(message: string): Parsed<T> {
  return { ok: false, message };
}

// Decimal without leading zeros, as the contract's patterns write numbers.
function uint(text: string, max: number): number | undefined {
  if (!/^(0|[1-9]\d{0,4})$/.test(text)) return undefined;
  const value = Number(text);
  return value <= max ? value : undefined;
}

export function parseA(data: string): Parsed<string> {
  // node:net accepts only the strict dotted quad: no leading zeros, no short forms.
  return isIPv4(data) ? { ok: true, value: data } : fail("must be an IPv4 address in dotted-quad form");
}

export function parseAAAA(data: string): Parsed<string> {
  // A zone index (fe80::1%eth0) names an interface of one machine, meaningless in DNS.
  return isIPv6(data) && !data.includes("%") ? { ok: true, value: data.toLowerCase() } : fail("must be an IPv6 address");
}

export function parseHost(data: string, allowUnderscore = false): Parsed<string> {
  const problem = hostNameProblem(data, { allowUnderscore });
  return problem ? fail(problem) : { ok: true, value: canonicalName(data) };
}

export function parseTxt(data: string): Parsed<string> {
  if (data.length === 0) return fail("must not be empty");
  if (CONTROL.test(data)) return fail("must be printable text without control characters");
  if ([...data].length > MAX_TXT_CHARS) return fail(`must be at most ${MAX_TXT_CHARS} characters`);
  return { ok: true, value: data };
}

export function parseSrv(data: string): Parsed<SrvData> {
  const parts = data.split(" ");
  if (parts.length !== 4) return fail("must be `priority weight port target`, separated by single spaces");
  const [priority, weight, port] = parts.slice(0, 3).map((p) => uint(p, 65535));
  if (priority === undefined) return fail("priority must be an integer 0 to 65535");
  if (weight === undefined) return fail("weight must be an integer 0 to 65535");
  if (port === undefined) return fail("port must be an integer 0 to 65535");
  // RFC 2782: a target of "." means the service is decidedly not available here.
  if (parts[3] === ".") return { ok: true, value: { priority, weight, port, target: "." } };
  const target = parseHost(parts[3]);
  if (!target.ok) return fail(`target ${target.message}`);
  return { ok: true, value: { priority, weight, port, target: target.value } };
}

export function parseCaa(data: string): Parsed<CaaData> {
  if ([...data].length > MAX_CAA_CHARS) return fail(`must be at most ${MAX_CAA_CHARS} characters`);
  // [\s\S]: a quoted value may hold any printable character, line separators (U+2028) included.
  const match = /^(\S+) (\S+) ([\s\S]*)$/.exec(data);
  if (!match) return fail("must be `flags tag value`, separated by single spaces");
  const flags = uint(match[1], 255);
  if (flags === undefined) return fail("flags must be an integer 0 to 255");
  const tag = match[2];
  if (!CAA_TAGS.includes(tag)) return fail("tag must be issue, issuewild or iodef (lowercase)");
  let value = match[3];
  if (value.startsWith('"')) {
    if (value.length < 2 || !value.endsWith('"') || value.slice(1, -1).includes('"')) {
      return fail("a quoted value must be one string in double quotes");
    }
    value = value.slice(1, -1);
  } else if (/[\s"]/.test(value) || value.length === 0) {
    return fail("a bare value must be one word; quote values with spaces");
  }
  if (CONTROL.test(value)) return fail("value must be printable text");
  if (tag === "iodef" && !/^(mailto:|https?:\/\/)[^\s"]+$/.test(value)) {
    return fail("an iodef value must be a mailto:, http:// or https:// URL without spaces");
  }
  return { ok: true, value: { flags, tag: tag as CaaData["tag"], value } };
}

/** Parse the data of any allowed type; the value is the canonical stored text. */
export function parseData(type: DnsRecordType, data: string): Parsed<string> {
  switch (type) {
    case "A":
      return parseA(data);
    case "AAAA":
      return parseAAAA(data);
    case "TXT":
      return parseTxt(data);
    case "MX":
    case "NS":
      return parseHost(data);
    // CNAME targets are often service names (_acme-challenge delegation, DKIM selectors).
    case "CNAME":
      return parseHost(data, true);
    case "SRV": {
      const srv = parseSrv(data);
      if (!srv.ok) return srv;
      const { priority, weight, port, target } = srv.value;
      return { ok: true, value: `${priority} ${weight} ${port} ${target}` };
    }
    case "CAA": {
      const caa = parseCaa(data);
      if (!caa.ok) return caa;
      return { ok: true, value: `${caa.value.flags} ${caa.value.tag} "${caa.value.value}"` };
    }
  }
}

/** Split TXT text into character-strings of at most 255 bytes, never inside a UTF-8 sequence. */
export function splitTxt(text: string): Buffer[] {
  const bytes = Buffer.from(text);
  if (bytes.length === 0) return [bytes];
  const chunks: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = Math.min(start + 255, bytes.length);
    // Back off continuation bytes (10xxxxxx) so each chunk decodes as text on its own.
    while (end < bytes.length && end > start && (bytes[end] & 0xc0) === 0x80) end--;
    chunks.push(bytes.subarray(start, end));
    start = end;
  }
  return chunks;
}
