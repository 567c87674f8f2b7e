// `ready` is what DNS answers, not what we stored: each required record is looked up through the
// configured resolver (the server's own DNS server by default), so a domain hosted elsewhere
// turns ready once its owner publishes the records there.
import { canonicalName } from "../dns/names.ts";
import type { DnsResolver } from "../dns/resolver.ts";
import type { RequiredRecord } from "./required-records.ts";

const sameHost = (a: string, b: string) => canonicalName(a) === canonicalName(b);

export async function checkRecord(resolver: DnsResolver, record: RequiredRecord): Promise<boolean> {
  try {
    if (record.type === "MX") {
      const mx = await resolver.resolveMxOrEmpty(record.name);
      return mx.some((m) => sameHost(m.exchange, record.data) && m.priority === record.priority);
    }
    const txt = await resolver.resolveTxtJoinedOrEmpty(record.name);
    return txt.includes(record.data);
  } catch {
    // Timeouts and refusals mean "not verified yet", never an error of the API call.
    return false;
  }
}

export async function checkRecords(resolver: DnsResolver, records: RequiredRecord[]): Promise<boolean[]> {
  return Promise.all(records.map((r) => checkRecord(resolver, r)));
}
