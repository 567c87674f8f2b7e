// What an authoritative server says about one question, computed from a snapshot of one
// zone. Pure, so every DNS rule here (CNAME chasing, NXDOMAIN vs NODATA, referrals,
// synthesized SOA and NS) is testable without sockets; the wire server only encodes it.
import type { Answer } from "dns-packet";
import { APEX, absoluteName, ancestors, relativeName } from "./names.ts";
import { parseCaa, parseSrv, splitTxt } from "./record-data.ts";
import type { DnsRecord, DnsZone } from "./zone-repository.ts";

export type Rcode = "NOERROR" | "NXDOMAIN";

export interface AnswerResult {
  rcode: Rcode;
  /** False only for referrals: below a delegation the child's servers are the authority. */
  authoritative: boolean;
  answers: Answer[];
  authorities: Answer[];
  additionals: Answer[];
}

export interface ZoneIdentity {
  /** Name servers published at the apex when the zone stores no NS records. */
  nameservers?: (zone: string) => string[];
  /** SOA RNAME (the hostmaster mailbox in domain form). */
  hostmaster?: (zone: string) => string;
}

const SOA_TTL = 3600;
// Negative answers are cached for min(SOA TTL, MINIMUM) (RFC 2308); five minutes keeps a
// record created through the API from staying invisible for long.
const SOA_MINIMUM = 300;
const MAX_CNAME_CHAIN = 8;

const defaultNameservers = (zone: string) => [`ns1.${zone}`, `ns2.${zone}`];
const defaultHostmaster = (zone: string) => `hostmaster.${zone}`;

// `target` is the stored host of a CNAME, kept apart so chasing needs no answer decoding.
export type Entry = { type: string; ttl: number; target?: string; toAnswer: (owner: string) => Answer };

function stored(record: DnsRecord): Entry {
  const base = { ttl: record.ttl };
  const make = (data: unknown) => (owner: string) => ({ name: owner, type: record.type, ttl: record.ttl, class: "IN", data }) as Answer;
  switch (record.type) {
    case "TXT":
      return { type: "TXT", ...base, toAnswer: make(splitTxt(record.data)) };
    case "MX":
      return { type: "MX", ...base, toAnswer: make({ preference: record.priority ?? 0, exchange: record.data }) };
    case "SRV": {
      const srv = parseSrv(record.data);
      return { type: "SRV", ...base, toAnswer: make(srv.ok ? srv.value : undefined) };
    }
    case "CAA": {
      const caa = parseCaa(record.data);
      return { type: "CAA", ...base, toAnswer: make(caa.ok ? caa.value : undefined) };
    }
    default:
      return { type: record.type, ...base, target: record.data, toAnswer: make(record.data) };
  }
}

function soaAnswer(zone: DnsZone, identity: Required<ZoneIdentity>, ttl = SOA_TTL): Answer {
  return {
    name: zone.name,
    type: "SOA",
    ttl,
    class: "IN",
    data: {
      mname: identity.nameservers(zone.name)[0],
      rname: identity.hostmaster(zone.name),
      serial: zone.serial,
      refresh: 3600,
      retry: 600,
      expire: 604800,
      minimum: SOA_MINIMUM,
    },
  };
}

/** One zone prepared for answering: built once per zone change, read by every query. */
export interface ZoneIndex {
  zone: DnsZone;
  /** Name, then type, to the RRset: a query is two map reads. */
  entries: Map<string, Map<string, Entry[]>>;
  /** Names that own records or are ancestors of one (empty non-terminals answer NODATA). */
  existing: Set<string>;
  /** Non-apex names holding NS records: delegation points. */
  cuts: Set<string>;
  byName: Map<string, DnsRecord[]>;
  negativeSoa: Answer;
}

export function buildZoneIndex(zone: DnsZone, records: readonly DnsRecord[], identityOptions: ZoneIdentity = {}): ZoneIndex {
  const identity = {
    nameservers: identityOptions.nameservers ?? defaultNameservers,
    hostmaster: identityOptions.hostmaster ?? defaultHostmaster,
  };
  const byName = new Map<string, DnsRecord[]>();
  for (const record of records) byName.set(record.name, [...(byName.get(record.name) ?? []), record]);
  const existing = new Set<string>([APEX]);
  for (const name of byName.keys()) [name, ...ancestors(name)].forEach((n) => existing.add(n));
  const cuts = new Set([...byName].filter(([n, rs]) => n !== APEX && rs.some((r) => r.type === "NS")).map(([n]) => n));

  const flat = new Map<string, Entry[]>();
  for (const [name, list] of byName) flat.set(name, list.map(stored));
  const soa = soaAnswer(zone, identity);
  const apex: Entry[] = [{ type: "SOA", ttl: SOA_TTL, toAnswer: (owner) => ({ ...soa, name: owner }) }];
  const storedApex = flat.get(APEX) ?? [];
  if (!storedApex.some((e) => e.type === "NS")) {
    for (const ns of identity.nameservers(zone.name)) {
      apex.push({ type: "NS", ttl: SOA_TTL, toAnswer: (owner) => ({ name: owner, type: "NS", ttl: SOA_TTL, class: "IN", data: ns }) });
    }
  }
  flat.set(APEX, [...apex, ...storedApex]);
  const entries = new Map<string, Map<string, Entry[]>>();
  for (const [name, list] of flat) {
    const byType = new Map<string, Entry[]>();
    for (const entry of list) byType.set(entry.type, [...(byType.get(entry.type) ?? []), entry]);
    entries.set(name, byType);
  }
  return { zone, entries, existing, cuts, byName, negativeSoa: soaAnswer(zone, identity, Math.min(SOA_TTL, SOA_MINIMUM)) };
}

/**
 * Answer `qtype` for `qname` (canonical, inside the indexed zone). `askedName` is the
 * question's own spelling, echoed as the owner of answers so clients that randomize case
 * (0x20) match.
 */
export function answerQuestion(index: ZoneIndex, qname: string, qtype: string, askedName: string): AnswerResult {
  const { zone } = index;
  // The delegation point closest to the apex at or above `name`, if any. Zones rarely
  // delegate, so scanning the few cuts beats building the name's ancestors per query.
  const cutAbove = (name: string): string | undefined => {
    let found: string | undefined;
    for (const cut of index.cuts) {
      if ((name === cut || name.endsWith(`.${cut}`)) && (found === undefined || cut.length < found.length)) found = cut;
    }
    return found;
  };

  const answers: Answer[] = [];
  let current = relativeName(qname, zone.name) ?? APEX;
  let owner = askedName;
  let visited: Set<string> | undefined;

  while (true) {
    const cut = cutAbove(current);
    if (cut !== undefined) {
      // Records below a cut belong to the child zone: refer, unless a CNAME led here.
      if (answers.length > 0) return { rcode: "NOERROR", authoritative: true, answers, authorities: [], additionals: [] };
      return referral(cut, index.byName, zone);
    }
    const entries = index.entries.get(current);
    const matching =
      qtype === "ANY"
        ? // RFC 8482: one RRset is a complete answer to ANY, and keeps amplification low.
          entries?.values().next().value
        : entries?.get(qtype);
    if (matching !== undefined) {
      answers.push(...matching.map((e) => e.toAnswer(owner)));
      return { rcode: "NOERROR", authoritative: true, answers, authorities: [], additionals: [] };
    }
    const cname = entries?.get("CNAME")?.[0];
    if (cname) {
      answers.push(cname.toAnswer(owner));
      visited ??= new Set();
      visited.add(current);
      const target = relativeName(cname.target!, zone.name);
      // Chase only inside this zone; a resolver follows targets elsewhere itself.
      if (target === undefined || visited.has(target) || visited.size >= MAX_CNAME_CHAIN) {
        return { rcode: "NOERROR", authoritative: true, answers, authorities: [], additionals: [] };
      }
      current = target;
      owner = cname.target!;
      continue;
    }
    // RFC 6604: after a CNAME chain the rcode describes the last name in the chain.
    const rcode: Rcode = index.existing.has(current) ? "NOERROR" : "NXDOMAIN";
    return { rcode, authoritative: true, answers, authorities: [index.negativeSoa], additionals: [] };
  }
}

function referral(cut: string, byName: Map<string, DnsRecord[]>, zone: DnsZone): AnswerResult {
  const owner = absoluteName(cut, zone.name);
  const nsRecords = (byName.get(cut) ?? []).filter((r) => r.type === "NS");
  const authorities = nsRecords.map((r) => stored(r).toAnswer(owner));
  // Glue: addresses of in-zone name servers, without which the child is unreachable.
  const additionals: Answer[] = [];
  for (const ns of nsRecords) {
    const glueName = relativeName(ns.data, zone.name);
    if (glueName === undefined) continue;
    for (const r of byName.get(glueName) ?? []) {
      if (r.type === "A" || r.type === "AAAA") additionals.push(stored(r).toAnswer(ns.data));
    }
  }
  return { rcode: "NOERROR", authoritative: false, answers: [], authorities, additionals };
}
