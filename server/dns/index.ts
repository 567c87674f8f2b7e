// The DNS area's public surface; the core imports from here, not from the files behind it.
export { startDnsServer, type DnsServer, type DnsServerOptions } from "./authoritative-server.ts";
export type { ZoneIdentity } from "./answer.ts";
export { DNS_RECORD_TYPES, MAX_TXT_CHARS, splitTxt, type DnsRecordType } from "./record-data.ts";
export { createResolver, type DnsResolver, type ResolverOptions } from "./resolver.ts";
export { SqliteDnsRecordRepository, dnsMigrations } from "./sqlite-zone-repository.ts";
export {
  TTL_DEFAULT,
  TTL_MAX,
  TTL_MIN,
  checkNameConflicts,
  isRecordType,
  normalizeRecordName,
  validateRecord,
  type FieldError,
  type RecordInput,
  type RecordValidation,
  type ValidRecord,
} from "./validate-record.ts";
export type { DnsRecord, DnsRecordRepository, DnsZone, NewZone } from "./zone-repository.ts";
