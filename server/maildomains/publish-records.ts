// Publishes a mail domain's records into the project's zone when that zone is hosted here.
// Records already present are left alone, so connecting again never duplicates them.
import { canonicalName, relativeName } from "../dns/names.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import { validateRecord } from "../dns/validate-record.ts";
import type { RequiredRecord } from "./required-records.ts";

export async function publishRecords(
  zones: DnsRecordRepository,
  projectId: string,
  domain: string,
  records: RequiredRecord[],
): Promise<number> {
  const zone = await zones.findZoneForName(domain);
  if (!zone || zone.projectId !== projectId) return 0;
  let created = 0;
  for (const r of records) {
    // The zone contains the domain (findZoneForName), so every record name lies inside it.
    const name = relativeName(canonicalName(r.name), zone.name)!;
    const checked = validateRecord({ type: r.type, name, data: r.data, priority: r.priority, ttl: r.ttl }, zone.name);
    if (!checked.ok) throw new Error(`generated record ${r.type} ${r.name} is invalid: ${JSON.stringify(checked.errors)}`);
    const existing = await zones.findRecords(zone.name, checked.record.name, checked.record.type);
    if (existing.some((e) => e.data === checked.record.data && e.priority === checked.record.priority)) continue;
    await zones.insertRecord(zone.name, checked.record);
    created++;
  }
  return created;
}
