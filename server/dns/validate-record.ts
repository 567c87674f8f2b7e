// Validation of a record submitted to POST /v1/dns/{zone}/records. Pure functions that
// return every problem at once as { path, message }, so the HTTP layer can answer
// 400 { error, code: "invalid_request", details } without knowing DNS rules.
import { APEX, MAX_NAME_LENGTH, absoluteName, isRecordLabel, relativeName } from "./names.ts";
import { DNS_RECORD_TYPES, parseData, type DnsRecordType } from "./record-data.ts";

export interface FieldError {
  path: string;
  message: string;
}

/** The request body as received; fields are unknown until checked. */
export interface RecordInput {
  type?: unknown;
  name?: unknown;
  data?: unknown;
  priority?: unknown;
  ttl?: unknown;
}

/** A record ready to store: name relative and lowercase, data canonical. */
export interface ValidRecord {
  type: DnsRecordType;
  name: string;
  data: string;
  priority: number | null;
  ttl: number;
}

export type RecordValidation = { ok: true; record: ValidRecord } | { ok: false; errors: FieldError[] };

export const TTL_MIN = 60;
export const TTL_MAX = 86400;
export const TTL_DEFAULT = 3600;

// Paths follow the contract's ErrorDetail convention ("body.ttl").
const at = (field: string) => `body.${field}`;

export function isRecordType(value: unknown): value is DnsRecordType {
  return typeof value === "string" && (DNS_RECORD_TYPES as readonly string[]).includes(value);
}

/**
 * The zone-relative form of a submitted name, or a message. "@" is the apex; a name ending in the
 * zone ("www.example.test") is taken as absolute, because clients copy names from listings.
 * The syntax is the contract's RecordName: labels only, no final dot, at most 253 characters.
 */
export function normalizeRecordName(name: string, zone: string): { name: string } | { message: string } {
  if (name.length > MAX_NAME_LENGTH) return { message: `must be at most ${MAX_NAME_LENGTH} characters` };
  const lower = name.toLowerCase();
  if (lower === APEX) return { name: APEX };
  const bad = lower.split(".").find((label) => !isRecordLabel(label));
  if (bad !== undefined) {
    return { message: `label "${bad}" must be 1 to 63 characters of letters, digits, "_" and inner "-"` };
  }
  return { name: relativeName(lower, zone) ?? lower };
}

// Only MX has a priority field; on other types it is an unknown field, ignored like any other
// (SRV carries its priority inside data). docs/decisions.md D1.
function checkPriority(type: DnsRecordType | undefined, priority: unknown, errors: FieldError[]): number | null {
  if (type !== "MX") return null;
  if (priority === undefined || priority === null) errors.push({ path: at("priority"), message: "is required for MX records" });
  else if (!Number.isInteger(priority) || (priority as number) < 0 || (priority as number) > 65535) {
    errors.push({ path: at("priority"), message: "must be an integer 0 to 65535" });
  } else return priority as number;
  return null;
}

function checkTtl(ttl: unknown, errors: FieldError[]): number {
  if (ttl === undefined || ttl === null) return TTL_DEFAULT;
  if (!Number.isInteger(ttl) || (ttl as number) < TTL_MIN || (ttl as number) > TTL_MAX) {
    errors.push({ path: at("ttl"), message: `must be an integer ${TTL_MIN} to ${TTL_MAX}` });
  }
  return ttl as number;
}

/** Validate one record for `zone` (canonical: lowercase, no trailing dot). */
export function validateRecord(input: RecordInput, zone: string): RecordValidation {
  const errors: FieldError[] = [];
  let type: DnsRecordType | undefined;
  if (!isRecordType(input.type)) {
    errors.push({ path: at("type"), message: `must be one of ${DNS_RECORD_TYPES.join(", ")}` });
  } else type = input.type;

  let name: string | undefined;
  if (typeof input.name !== "string") errors.push({ path: at("name"), message: "is required" });
  else {
    const normalized = normalizeRecordName(input.name, zone);
    if ("message" in normalized) errors.push({ path: at("name"), message: normalized.message });
    else name = normalized.name;
  }

  let data: string | undefined;
  if (typeof input.data !== "string" || input.data.length === 0) {
    errors.push({ path: at("data"), message: "is required" });
  } else if (type !== undefined) {
    const parsed = parseData(type, input.data);
    if (parsed.ok) data = parsed.value;
    else errors.push({ path: at("data"), message: parsed.message });
  }

  if (type === "SRV" && name !== undefined && !/^_[^.]+\._[^.]+/.test(name)) {
    errors.push({ path: at("name"), message: "an SRV name must start with _service._proto, like _sip._tcp" });
  }

  const priority = checkPriority(type, input.priority, errors);
  const ttl = checkTtl(input.ttl, errors);
  if (errors.length > 0 || type === undefined || name === undefined || data === undefined) {
    return { ok: false, errors };
  }
  return { ok: true, record: { type, name, data, priority, ttl } };
}

/**
 * Rules that depend on the zone rather than on the request, answered 409 `conflict` (the contract
 * cannot know them): the full name fits 253 characters; a CNAME stands alone, so never at the
 * apex (which always holds SOA and NS, RFC 1034 3.6.2), never beside other records or a second
 * CNAME, and nothing joins an existing CNAME. Identical records are refused too, since DNS serves
 * an RRset, not a multiset.
 */
export function checkNameConflicts(
  candidate: Pick<ValidRecord, "type" | "name" | "data" | "priority">,
  existingAtName: readonly Pick<ValidRecord, "type" | "data" | "priority">[],
  zone: string,
): FieldError[] {
  if (absoluteName(candidate.name, zone).length > MAX_NAME_LENGTH) {
    return [{ path: at("name"), message: `${candidate.name}.${zone} is longer than ${MAX_NAME_LENGTH} characters` }];
  }
  if (candidate.type === "CNAME" && candidate.name === APEX) {
    return [{ path: at("name"), message: "the zone apex holds SOA and NS records; a CNAME must stand alone at its name" }];
  }
  if (existingAtName.length === 0) return [];
  if (candidate.type === "CNAME") {
    const what = existingAtName.some((r) => r.type === "CNAME") ? "a CNAME" : "other records";
    return [{ path: at("name"), message: `${candidate.name} already has ${what}; a CNAME must stand alone at its name` }];
  }
  if (existingAtName.some((r) => r.type === "CNAME")) {
    return [{ path: at("name"), message: `${candidate.name} has a CNAME, which must stand alone at its name` }];
  }
  if (existingAtName.some((r) => r.type === candidate.type && r.data === candidate.data && r.priority === candidate.priority)) {
    return [{ path: at("data"), message: `an identical ${candidate.type} record already exists at ${candidate.name}` }];
  }
  return [];
}
