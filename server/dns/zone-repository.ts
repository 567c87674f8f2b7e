// The storage boundary of the DNS area, and its one implementation over the store (db/sql.ts).
// Handlers, the mail-domain publisher and the wire server depend only on the interface.
import { CapReachedError } from "../db/capped-insert.ts";
import { bool, type Sql, type Store } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";
import { ancestors, canonicalName } from "./names.ts";
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
   * zones while it stays the same and reads it once per event-loop turn, so it is read
   * without a promise and must be cheap; changing too often only costs speed.
   */
  changeToken(): string;
}

/**
 * Notified by every zone and record write, in its transaction. Code writing zones or records
 * by other SQL must notify it too (and bump zones.serial), or the DNS caches keep the old answer.
 */
export const ZONES_CHANNEL = "zones_changed";

interface ZoneRow {
  name: string;
  project_id: string | null;
  registrar_requires_data: unknown;
  serial: number;
  created_at: string;
}

interface RecordRow {
  id: string;
  zone: string;
  name: string;
  type: string;
  data: string;
  priority: number | null;
  ttl: number;
  created_at: string;
}

const toZone = (r: ZoneRow): DnsZone => ({ name: r.name, projectId: r.project_id, registrarRequiresData: bool(r.registrar_requires_data), serial: r.serial, createdAt: r.created_at });

const toRecord = (r: RecordRow): DnsRecord => ({ id: r.id, zone: r.zone, name: r.name, type: r.type as DnsRecordType, data: r.data, priority: r.priority, ttl: r.ttl, createdAt: r.created_at });

/** The zones of a store, their change token following every writer (zoneRepository builds one). */
export class SqlDnsRecordRepository implements DnsRecordRepository {
  readonly #db: Sql;
  readonly #changed: () => boolean;
  /** Changes another writer made (store.changes: another SQLite connection, a NOTIFY on PostgreSQL). */
  #others = 0;
  /** ZONES_CHANNEL notifications heard in this process: any writer on this store, this repository or not. */
  #heard = 0;
  /** This repository's own commits, counted at once (a notification arrives a moment later). */
  #own = 0;

  /**
   * `changed` answers true after a change by another writer (store.changes(ZONES_CHANNEL)); a
   * store without a listener is `() => true`: every read is a new token, nothing is kept.
   */
  constructor(db: Sql, changed: () => boolean) {
    this.#db = db;
    this.#changed = changed;
  }

  /** Counts the notifications of this process's other writers too; call once with the store. */
  async listen(store: Store): Promise<this> {
    await store.listen(ZONES_CHANNEL, () => this.#heard++);
    return this;
  }

  createZone(zone: NewZone): Promise<DnsZone> {
    return this.#write(async (tx) =>
      toZone((await tx.get<ZoneRow>("INSERT INTO zones (name, project_id, registrar_requires_data, serial, created_at) VALUES (?, ?, ?, 1, ?) RETURNING *", [
        canonicalName(zone.name), zone.projectId ?? null, zone.registrarRequiresData ?? false, nowIso(),
      ]))!),
    );
  }

  async getZone(name: string): Promise<DnsZone | undefined> {
    const row = await this.#db.get<ZoneRow>("SELECT * FROM zones WHERE name = ?", [canonicalName(name)]);
    return row && toZone(row);
  }

  async listZones(projectId?: string): Promise<DnsZone[]> {
    const rows = projectId === undefined
      ? await this.#db.all<ZoneRow>("SELECT * FROM zones ORDER BY name")
      : await this.#db.all<ZoneRow>("SELECT * FROM zones WHERE project_id = ? ORDER BY name", [projectId]);
    return rows.map(toZone);
  }

  bindZone(name: string, projectId: string | null): Promise<boolean> {
    return this.#write(async (tx) => (await tx.run("UPDATE zones SET project_id = ? WHERE name = ?", [projectId, canonicalName(name)])).changes > 0);
  }

  async findZoneForName(absoluteName: string): Promise<DnsZone | undefined> {
    // Most specific first, so a delegated child zone hosted here wins over its parent.
    const name = canonicalName(absoluteName);
    const row = await this.#db.get<ZoneRow>(
      `SELECT * FROM zones WHERE name IN (SELECT value FROM ${this.#db.dialect.jsonArray("?")}) ORDER BY length(name) DESC LIMIT 1`,
      [JSON.stringify([name, ...ancestors(name)])],
    );
    return row && toZone(row);
  }

  async listZoneRecords(zone: string): Promise<DnsRecord[]> {
    return (await this.#db.all<RecordRow>("SELECT * FROM dns_records WHERE zone = ? ORDER BY created_at, id", [canonicalName(zone)])).map(toRecord);
  }

  async countZoneRecords(zone: string): Promise<number> {
    return (await this.#db.get<{ n: number }>("SELECT COUNT(*) AS n FROM dns_records WHERE zone = ?", [canonicalName(zone)]))!.n;
  }

  async getRecord(zone: string, id: string): Promise<DnsRecord | undefined> {
    const row = await this.#db.get<RecordRow>("SELECT * FROM dns_records WHERE zone = ? AND id = ?", [canonicalName(zone), id]);
    return row && toRecord(row);
  }

  async findRecords(zone: string, name: string, type?: DnsRecordType): Promise<DnsRecord[]> {
    const rows = type
      ? await this.#db.all<RecordRow>("SELECT * FROM dns_records WHERE zone = ? AND name = ? AND type = ? ORDER BY created_at, id", [canonicalName(zone), name.toLowerCase(), type])
      : await this.#db.all<RecordRow>("SELECT * FROM dns_records WHERE zone = ? AND name = ? ORDER BY created_at, id", [canonicalName(zone), name.toLowerCase()]);
    return rows.map(toRecord);
  }

  insertRecord(zone: string, record: ValidRecord, cap?: number): Promise<DnsRecord> {
    const name = canonicalName(zone);
    return this.#write(async (tx) => {
      // The serial's row lock comes first: it orders every record write of the zone (on SQLite
      // the write transaction holds the file), which is what keeps the cap exact across
      // connections and instances. An unknown zone ends here.
      if ((await tx.run("UPDATE zones SET serial = serial + 1 WHERE name = ?", [name])).changes === 0) throw new Error(`unknown zone ${zone}`);
      if (cap !== undefined) {
        const { n } = (await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM dns_records WHERE zone = ?", [name]))!;
        if (n >= cap) throw new CapReachedError(cap);
      }
      return toRecord((await tx.get<RecordRow>("INSERT INTO dns_records (id, zone, name, type, data, priority, ttl, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *", [
        newId("rec"), name, record.name, record.type, record.data, record.priority, record.ttl, nowIso(),
      ]))!);
    });
  }

  deleteRecord(zone: string, id: string): Promise<boolean> {
    const name = canonicalName(zone);
    return this.#write(async (tx) => {
      if ((await tx.run("DELETE FROM dns_records WHERE zone = ? AND id = ?", [name, id])).changes === 0) return false;
      await tx.run("UPDATE zones SET serial = serial + 1 WHERE name = ?", [name]);
      return true;
    });
  }

  changeToken(): string {
    if (this.#changed()) this.#others++;
    return `${this.#others}:${this.#heard}:${this.#own}`;
  }

  /**
   * A write and its notification in one transaction (a savepoint of the caller's, when one is
   * open: a mail domain's records published with it); the own count moves once it returned.
   */
  async #write<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    const result = await this.#db.transaction(async (tx) => {
      const r = await fn(tx);
      await tx.notify(ZONES_CHANNEL);
      return r;
    });
    this.#own++;
    return result;
  }
}

/** The zones of a store, their change token following this process's writers and every other one. */
export async function zoneRepository(store: Store): Promise<SqlDnsRecordRepository> {
  return new SqlDnsRecordRepository(store, await store.changes(ZONES_CHANNEL)).listen(store);
}
