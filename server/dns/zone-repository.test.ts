// DNS zones and records, and the wire server's prepared zones: the shared suite on both backends.
import { backends, byBackend } from "../test/backends.ts";
import { PgDnsRecordRepository, ZONES_CHANNEL } from "./pg-zone-repository.ts";
import { SqliteDnsRecordRepository } from "./sqlite-zone-repository.ts";
import { describeZoneRepository } from "./zone-repository.contract.ts";
import type { DnsRecordRepository } from "./zone-repository.ts";

const make = byBackend<DnsRecordRepository>({ sqlite: (db) => new SqliteDnsRecordRepository(db), postgres: (pg) => new PgDnsRecordRepository(pg) });
for (const backend of backends) describeZoneRepository(backend, { make, channel: ZONES_CHANNEL });
