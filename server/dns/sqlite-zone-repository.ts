// SQLite implementation of DnsRecordRepository on node:sqlite. The core owns the database
// file, its pragmas and the migration runner; this module only brings its schema and
// queries, so the DNS tables live in the same file and transactions as everything else.
import { newId } from "../ids.ts";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { canonicalName } from "./names.ts";
import type { DnsRecordType } from "./record-data.ts";
import type { ValidRecord } from "./validate-record.ts";
import type { DnsRecord, DnsRecordRepository, DnsZone, NewZone } from "./zone-repository.ts";

/**
 * Schema of the DNS area, for the core's migration runner (idempotent, so it is also safe
 * to exec directly). `zones.serial` is bumped by insertRecord and deleteRecord; a record
 * written by other SQL must bump it too, or secondaries and caches keep the old answer.
 */
export const dnsMigrations = `
CREATE TABLE IF NOT EXISTS zones (
  name TEXT PRIMARY KEY,
  project_id TEXT,
  registrar_requires_data INTEGER NOT NULL DEFAULT 0,
  serial INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS zones_project ON zones (project_id);
CREATE TABLE IF NOT EXISTS dns_records (
  id TEXT PRIMARY KEY,
  zone TEXT NOT NULL REFERENCES zones (name) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  priority INTEGER,
  ttl INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS dns_records_zone_name ON dns_records (zone, name);
`;

interface ZoneRow {
  name: string;
  project_id: string | null;
  registrar_requires_data: number;
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

function toZone(row: ZoneRow): DnsZone {
  return {
    name: row.name,
    projectId: row.project_id,
    registrarRequiresData: row.registrar_requires_data === 1,
    serial: row.serial,
    createdAt: row.created_at,
  };
}

function toRecord(row: RecordRow): DnsRecord {
  return {
    id: row.id,
    zone: row.zone,
    name: row.name,
    type: row.type as DnsRecordType,
    data: row.data,
    priority: row.priority,
    ttl: row.ttl,
    createdAt: row.created_at,
  };
}

/** Every suffix of a name that could be a zone: "a.b.c" gives a.b.c, b.c, c. */
function suffixes(name: string): string[] {
  const labels = name.split(".");
  return labels.map((_, i) => labels.slice(i).join("."));
}

export class SqliteDnsRecordRepository implements DnsRecordRepository {
  readonly #db: DatabaseSync;
  // Prepared once: the wire server runs these on every query.
  readonly #zoneByName: StatementSync;
  readonly #recordsOfZone: StatementSync;
  readonly #changes: StatementSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#zoneByName = db.prepare("SELECT * FROM zones WHERE name = ?");
    this.#recordsOfZone = db.prepare("SELECT * FROM dns_records WHERE zone = ? ORDER BY created_at, id");
    // data_version moves when another connection commits; total_changes counts this
    // connection's writes, including SQL the core runs without going through this class.
    this.#changes = db.prepare("SELECT total_changes() AS own, data_version AS others FROM pragma_data_version()");
  }

  async createZone(zone: NewZone): Promise<DnsZone> {
    const row = this.#db
      .prepare(
        "INSERT INTO zones (name, project_id, registrar_requires_data, serial, created_at) VALUES (?, ?, ?, 1, ?) RETURNING *",
      )
      .get(canonicalName(zone.name), zone.projectId ?? null, zone.registrarRequiresData ? 1 : 0, new Date().toISOString());
    return toZone(row as unknown as ZoneRow);
  }

  async getZone(name: string): Promise<DnsZone | undefined> {
    const row = this.#zoneByName.get(canonicalName(name));
    return row ? toZone(row as unknown as ZoneRow) : undefined;
  }

  async listZones(projectId?: string): Promise<DnsZone[]> {
    const rows =
      projectId === undefined
        ? this.#db.prepare("SELECT * FROM zones ORDER BY name").all()
        : this.#db.prepare("SELECT * FROM zones WHERE project_id = ? ORDER BY name").all(projectId);
    return (rows as unknown as ZoneRow[]).map(toZone);
  }

  async bindZone(name: string, projectId: string | null): Promise<boolean> {
    const result = this.#db.prepare("UPDATE zones SET project_id = ? WHERE name = ?").run(projectId, canonicalName(name));
    return result.changes > 0;
  }

  async findZoneForName(absoluteName: string): Promise<DnsZone | undefined> {
    // Most specific first, so a delegated child zone hosted here wins over its parent.
    for (const candidate of suffixes(canonicalName(absoluteName))) {
      const row = this.#zoneByName.get(candidate);
      if (row) return toZone(row as unknown as ZoneRow);
    }
    return undefined;
  }

  async listZoneRecords(zone: string): Promise<DnsRecord[]> {
    return (this.#recordsOfZone.all(canonicalName(zone)) as unknown as RecordRow[]).map(toRecord);
  }

  async findRecords(zone: string, name: string, type?: DnsRecordType): Promise<DnsRecord[]> {
    const sql = "SELECT * FROM dns_records WHERE zone = ? AND name = ?" + (type ? " AND type = ?" : "") + " ORDER BY created_at, id";
    const params = type ? [canonicalName(zone), name.toLowerCase(), type] : [canonicalName(zone), name.toLowerCase()];
    return (this.#db.prepare(sql).all(...params) as unknown as RecordRow[]).map(toRecord);
  }

  async insertRecord(zone: string, record: ValidRecord): Promise<DnsRecord> {
    const id = newId("rec");
    const createdAt = new Date().toISOString();
    return this.#inTransaction(() => {
      const row = this.#db
        .prepare("INSERT INTO dns_records (id, zone, name, type, data, priority, ttl, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *")
        .get(id, canonicalName(zone), record.name, record.type, record.data, record.priority, record.ttl, createdAt);
      this.#bumpSerial(zone);
      return toRecord(row as unknown as RecordRow);
    });
  }

  async deleteRecord(zone: string, id: string): Promise<boolean> {
    return this.#inTransaction(() => {
      const result = this.#db.prepare("DELETE FROM dns_records WHERE zone = ? AND id = ?").run(canonicalName(zone), id);
      if (result.changes === 0) return false;
      this.#bumpSerial(zone);
      return true;
    });
  }

  async changeToken(): Promise<string> {
    const row = this.#changes.get() as { own: number; others: number };
    return `${row.others}:${row.own}`;
  }

  #bumpSerial(zone: string): void {
    const result = this.#db.prepare("UPDATE zones SET serial = serial + 1 WHERE name = ?").run(canonicalName(zone));
    // Without foreign keys enforced a record could land in no zone; the rollback prevents it.
    if (result.changes === 0) throw new Error(`unknown zone ${zone}`);
  }

  // The core may already hold a transaction (e.g. publishing a mail domain's records);
  // then this joins it instead of failing on a nested BEGIN.
  #inTransaction<T>(work: () => T): T {
    if (this.#db.isTransaction) return work();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = work();
      this.#db.exec("COMMIT");
      return result;
    } catch (error) {
      this.#db.exec("ROLLBACK");
      throw error;
    }
  }
}
