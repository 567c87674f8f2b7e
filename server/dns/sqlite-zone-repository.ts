// SQLite implementation of DnsRecordRepository on node:sqlite. The core owns the database
// file, its pragmas and the migration runner; this module only brings its schema and
// queries, so the DNS tables live in the same file and transactions as everything else.
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { insertWithinCapSync as insertWithinCap } from "../db/capped-insert.ts";
import { prepare } from "../db/statements.ts";
import { newId, nowIso } from "../ids.ts";
import { ancestors, canonicalName } from "./names.ts";
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

export class SqliteDnsRecordRepository implements DnsRecordRepository {
  readonly #db: DatabaseSync;
  #tokenStatement: StatementSync | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  async createZone(zone: NewZone): Promise<DnsZone> {
    const row = prepare(this.#db, "INSERT INTO zones (name, project_id, registrar_requires_data, serial, created_at) VALUES (?, ?, ?, 1, ?) RETURNING *")
      .get(canonicalName(zone.name), zone.projectId ?? null, zone.registrarRequiresData ? 1 : 0, nowIso());
    return toZone(row as unknown as ZoneRow);
  }

  async getZone(name: string): Promise<DnsZone | undefined> {
    const row = prepare(this.#db, "SELECT * FROM zones WHERE name = ?").get(canonicalName(name));
    return row ? toZone(row as unknown as ZoneRow) : undefined;
  }

  async listZones(projectId?: string): Promise<DnsZone[]> {
    const rows =
      projectId === undefined
        ? prepare(this.#db, "SELECT * FROM zones ORDER BY name").all()
        : prepare(this.#db, "SELECT * FROM zones WHERE project_id = ? ORDER BY name").all(projectId);
    return (rows as unknown as ZoneRow[]).map(toZone);
  }

  async bindZone(name: string, projectId: string | null): Promise<boolean> {
    const result = prepare(this.#db, "UPDATE zones SET project_id = ? WHERE name = ?").run(projectId, canonicalName(name));
    return result.changes > 0;
  }

  async findZoneForName(absoluteName: string): Promise<DnsZone | undefined> {
    // Most specific first, so a delegated child zone hosted here wins over its parent.
    const name = canonicalName(absoluteName);
    for (const candidate of [name, ...ancestors(name)]) {
      const row = prepare(this.#db, "SELECT * FROM zones WHERE name = ?").get(candidate);
      if (row) return toZone(row as unknown as ZoneRow);
    }
    return undefined;
  }

  async listZoneRecords(zone: string): Promise<DnsRecord[]> {
    return (prepare(this.#db, "SELECT * FROM dns_records WHERE zone = ? ORDER BY created_at, id").all(canonicalName(zone)) as unknown as RecordRow[]).map(toRecord);
  }

  async countZoneRecords(zone: string): Promise<number> {
    return (prepare(this.#db, "SELECT COUNT(*) AS n FROM dns_records WHERE zone = ?").get(canonicalName(zone)) as { n: number }).n;
  }

  async getRecord(zone: string, id: string): Promise<DnsRecord | undefined> {
    const row = prepare(this.#db, "SELECT * FROM dns_records WHERE zone = ? AND id = ?").get(canonicalName(zone), id);
    return row ? toRecord(row as unknown as RecordRow) : undefined;
  }

  async findRecords(zone: string, name: string, type?: DnsRecordType): Promise<DnsRecord[]> {
    const sql = "SELECT * FROM dns_records WHERE zone = ? AND name = ?" + (type ? " AND type = ?" : "") + " ORDER BY created_at, id";
    const params = type ? [canonicalName(zone), name.toLowerCase(), type] : [canonicalName(zone), name.toLowerCase()];
    return (prepare(this.#db, sql).all(...params) as unknown as RecordRow[]).map(toRecord);
  }

  async insertRecord(zone: string, record: ValidRecord, cap?: number): Promise<DnsRecord> {
    const id = newId("rec");
    const createdAt = nowIso();
    const count = () => (prepare(this.#db, "SELECT COUNT(*) AS n FROM dns_records WHERE zone = ?").get(canonicalName(zone)) as { n: number }).n;
    return insertWithinCap(this.#db, cap, count, () => {
      const row = prepare(this.#db, "INSERT INTO dns_records (id, zone, name, type, data, priority, ttl, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *")
        .get(id, canonicalName(zone), record.name, record.type, record.data, record.priority, record.ttl, createdAt);
      this.#bumpSerial(zone);
      return toRecord(row as unknown as RecordRow);
    });
  }

  async deleteRecord(zone: string, id: string): Promise<boolean> {
    return this.#inTransaction(() => {
      const result = prepare(this.#db, "DELETE FROM dns_records WHERE zone = ? AND id = ?").run(canonicalName(zone), id);
      if (result.changes === 0) return false;
      this.#bumpSerial(zone);
      return true;
    });
  }

  async changeToken(): Promise<string> {
    return this.changeTokenNow();
  }

  changeTokenNow(): string {
    // data_version moves when another connection commits; total_changes counts this
    // connection's writes, including SQL the core runs without going through this class.
    // Read once per event-loop turn by the wire server: a row as an array costs about half of
    // a row as an object, so this statement is its own (not the shared cache's) and returns arrays.
    if (!this.#tokenStatement) {
      this.#tokenStatement = this.#db.prepare("SELECT data_version, total_changes() FROM pragma_data_version()");
      this.#tokenStatement.setReturnArrays(true);
    }
    const [others, own] = this.#tokenStatement.get() as unknown as [number, number];
    return `${others}:${own}`;
  }

  #bumpSerial(zone: string): void {
    const result = prepare(this.#db, "UPDATE zones SET serial = serial + 1 WHERE name = ?").run(canonicalName(zone));
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
