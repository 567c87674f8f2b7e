// A zone exercising every record type and answer path, shared by the socket tests, the
// dig tests and the benchmark. Records go through validateRecord like API input does.
import { DatabaseSync } from "node:sqlite";
import { migrateSqliteNow } from "../db/migrate.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { dnsMigrations } from "./migrations.ts";
import { checkNameConflicts, validateRecord, type RecordInput } from "./validate-record.ts";
import { zoneRepository } from "./zone-repository.ts";

export const EXAMPLE_ZONE = "example.test";
export const LONG_TXT = "v=DKIM1; k=rsa; p=" + "A".repeat(582);
/** Twelve 100-byte strings: well over 512 bytes and over the 1232-byte EDNS limit. */
export const BIG_TXT_SET = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(2, "0")}-${"x".repeat(97)}`);

export const EXAMPLE_RECORDS: RecordInput[] = [
  { type: "A", name: "@", data: "192.0.2.1" },
  { type: "MX", name: "@", data: "mx.example.test", priority: 10 },
  { type: "TXT", name: "@", data: "v=spf1 -all" },
  { type: "CAA", name: "@", data: '0 issue "ca.test"' },
  { type: "A", name: "mx", data: "192.0.2.3" },
  { type: "CNAME", name: "www", data: "web.example.test" },
  { type: "A", name: "web", data: "192.0.2.2", ttl: 300 },
  { type: "AAAA", name: "web", data: "2001:db8::2" },
  { type: "TXT", name: "s1._domainkey", data: LONG_TXT },
  { type: "SRV", name: "_sip._tcp", data: "10 5 5060 sip.example.test" },
  { type: "CNAME", name: "ext", data: "target.other.test" },
  { type: "CNAME", name: "dangling", data: "nothere.example.test" },
  { type: "CNAME", name: "loop1", data: "loop2.example.test" },
  { type: "CNAME", name: "loop2", data: "loop1.example.test" },
  { type: "NS", name: "sub", data: "ns1.sub.example.test" },
  { type: "A", name: "ns1.sub", data: "192.0.2.53" },
  ...BIG_TXT_SET.map((data) => ({ type: "TXT", name: "big", data })),
];

export async function createExampleZone(records: RecordInput[] = EXAMPLE_RECORDS) {
  const db = new DatabaseSync(":memory:");
  migrateSqliteNow(db, dnsMigrations);
  const repository = await zoneRepository(storeOnSqlite(db));
  await repository.createZone({ name: EXAMPLE_ZONE, projectId: "demo" });
  for (const input of records) {
    const result = validateRecord(input, EXAMPLE_ZONE);
    if (!result.ok) throw new Error(`fixture record ${JSON.stringify(input)}: ${JSON.stringify(result.errors)}`);
    const conflicts = checkNameConflicts(result.record, await repository.findRecords(EXAMPLE_ZONE, result.record.name), EXAMPLE_ZONE);
    if (conflicts.length > 0) throw new Error(`fixture record ${JSON.stringify(input)}: ${conflicts[0].message}`);
    await repository.insertRecord(EXAMPLE_ZONE, result.record);
  }
  return { db, repository };
}
