// The storage boundary of the DNS area. Handlers, the mail-domain publisher and the wire
// server depend only on this interface, so a PostgreSQL implementation can replace the
// SQLite one without touching them; methods are async for that reason.
import type { DnsRecordType } from "./record-data.ts";
import type { ValidRecord } from "./validate-record.ts";

export interface DnsZone {
  /** Canonical zone name: lowercase, no trailing dot ("example.test"). */
  name: string;
  /** The project the zone is bound to; null until the console binds it. */
  projectId: string | null;
  /** The zone's registrar wants the record value (`data`) to delete a record. */
  registrarRequiresData: boolean;
  /** Bumped on every record change; served as the SOA serial. */
  serial: number;
  createdAt: string;
}

export interface DnsRecord {
  id: string;
  zone: string;
  /** Relative to the zone and lowercase; "@" is the apex. */
  name: string;
  type: DnsRecordType;
  data: string;
  priority: number | null;
  ttl: number;
  createdAt: string;
}

export interface NewZone {
  name: string;
  projectId?: string | null;
  registrarRequiresData?: boolean;
}

export interface DnsRecordRepository {
  createZone(zone: NewZone): Promise<DnsZone>;
  getZone(name: string): Promise<DnsZone | undefined>;
  /** Zones of one project, or every zone when projectId is omitted. */
  listZones(projectId?: string): Promise<DnsZone[]>;
  /** Bind (or unbind with null) a zone to a project; false when the zone does not exist. */
  bindZone(name: string, projectId: string | null): Promise<boolean>;
  /** The most specific hosted zone containing an absolute canonical name. */
  findZoneForName(absoluteName: string): Promise<DnsZone | undefined>;

  listZoneRecords(zone: string): Promise<DnsRecord[]>;
  countZoneRecords(zone: string): Promise<number>;
  getRecord(zone: string, id: string): Promise<DnsRecord | undefined>;
  findRecords(zone: string, name: string, type?: DnsRecordType): Promise<DnsRecord[]>;
  /**
   * Store a validated record (see validateRecord and checkNameConflicts). With `cap`, throws
   * CapReachedError when the zone already holds that many records, checked in the insert's transaction.
   */
  insertRecord(zone: string, record: ValidRecord, cap?: number): Promise<DnsRecord>;
  /** False when no record of that id exists in that zone. */
  deleteRecord(zone: string, id: string): Promise<boolean>;

  /**
   * A value that changes whenever zones or records may have changed, by this process or
   * another (the console writes the same database). The wire server keeps its prepared
   * zones while it stays the same, so it must be cheap; changing too often only costs speed.
   */
  changeToken(): Promise<string>;
  /**
   * The same token read synchronously, for stores that can (node:sqlite): the wire server's
   * once-per-turn check then costs no promise and no microtask hop before the turn's first answer.
   */
  changeTokenNow?(): string;
}
