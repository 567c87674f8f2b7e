// DnsRecordRepository on PostgreSQL (decision P1). Every write notifies ZONES_CHANNEL in its
// transaction; the change token the wire server's ZoneCache watches moves on each notification
// (another instance's change, P3) and at once on this instance's own writes, so an instance
// always answers DNS with what it wrote itself, and with another instance's change as soon as its
// notification arrives. No database trip per DNS query.
import type pg from "pg";
import { CapReachedError } from "../db/capped-insert.ts";
import { notify, type Pg } from "../db/postgres/pg.ts";
import { newId, nowIso } from "../ids.ts";
import { ancestors, canonicalName } from "./names.ts";
import type { DnsRecordType } from "./record-data.ts";
import type { ValidRecord } from "./validate-record.ts";
import type { DnsRecord, DnsRecordRepository, DnsZone, NewZone } from "./zone-repository.ts";

/** NOTIFY channel of zone and record changes. */
export const ZONES_CHANNEL = "zones_changed";

interface ZoneRow {
  name: string;
  project_id: string | null;
  registrar_requires_data: boolean;
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

const toZone = (r: ZoneRow): DnsZone => ({ name: r.name, projectId: r.project_id, registrarRequiresData: r.registrar_requires_data, serial: r.serial, createdAt: r.created_at });

const toRecord = (r: RecordRow): DnsRecord => ({ id: r.id, zone: r.zone, name: r.name, type: r.type as DnsRecordType, data: r.data, priority: r.priority, ttl: r.ttl, createdAt: r.created_at });

export class PgDnsRecordRepository implements DnsRecordRepository {
  readonly #db: Pg;
  #notified = 0;
  #own = 0;
  #listening: Promise<unknown>;

  constructor(db: Pg) {
    this.#db = db;
    // A failed LISTEN shows as listening() false, which changeToken answers for.
    this.#listening = db.listen(ZONES_CHANNEL, () => this.#notified++).catch(() => undefined);
  }

  async createZone(zone: NewZone): Promise<DnsZone> {
    return this.#write(async (c) => {
      const { rows } = await c.query<ZoneRow>("INSERT INTO zones (name, project_id, registrar_requires_data, serial, created_at) VALUES ($1, $2, $3, 1, $4) RETURNING *", [
        canonicalName(zone.name), zone.projectId ?? null, zone.registrarRequiresData ?? false, nowIso(),
      ]);
      return toZone(rows[0]);
    });
  }

  async getZone(name: string): Promise<DnsZone | undefined> {
    const [row] = await this.#db.query<ZoneRow>("SELECT * FROM zones WHERE name = $1", [canonicalName(name)]);
    return row && toZone(row);
  }

  async listZones(projectId?: string): Promise<DnsZone[]> {
    const found = projectId === undefined
      ? await this.#db.query<ZoneRow>("SELECT * FROM zones ORDER BY name")
      : await this.#db.query<ZoneRow>("SELECT * FROM zones WHERE project_id = $1 ORDER BY name", [projectId]);
    return found.map(toZone);
  }

  async bindZone(name: string, projectId: string | null): Promise<boolean> {
    return this.#write(async (c) => ((await c.query("UPDATE zones SET project_id = $1 WHERE name = $2", [projectId, canonicalName(name)])).rowCount ?? 0) > 0);
  }

  async findZoneForName(absoluteName: string): Promise<DnsZone | undefined> {
    // Most specific first, so a delegated child zone hosted here wins over its parent.
    const name = canonicalName(absoluteName);
    const [row] = await this.#db.query<ZoneRow>("SELECT * FROM zones WHERE name = ANY($1) ORDER BY length(name) DESC LIMIT 1", [[name, ...ancestors(name)]]);
    return row && toZone(row);
  }

  async listZoneRecords(zone: string): Promise<DnsRecord[]> {
    return (await this.#db.query<RecordRow>("SELECT * FROM dns_records WHERE zone = $1 ORDER BY created_at, id", [canonicalName(zone)])).map(toRecord);
  }

  async countZoneRecords(zone: string): Promise<number> {
    return (await this.#db.query<{ n: number }>("SELECT COUNT(*) AS n FROM dns_records WHERE zone = $1", [canonicalName(zone)]))[0].n;
  }

  async getRecord(zone: string, id: string): Promise<DnsRecord | undefined> {
    const [row] = await this.#db.query<RecordRow>("SELECT * FROM dns_records WHERE zone = $1 AND id = $2", [canonicalName(zone), id]);
    return row && toRecord(row);
  }

  async findRecords(zone: string, name: string, type?: DnsRecordType): Promise<DnsRecord[]> {
    const found = type
      ? await this.#db.query<RecordRow>("SELECT * FROM dns_records WHERE zone = $1 AND name = $2 AND type = $3 ORDER BY created_at, id", [canonicalName(zone), name.toLowerCase(), type])
      : await this.#db.query<RecordRow>("SELECT * FROM dns_records WHERE zone = $1 AND name = $2 ORDER BY created_at, id", [canonicalName(zone), name.toLowerCase()]);
    return found.map(toRecord);
  }

  async insertRecord(zone: string, record: ValidRecord, cap?: number): Promise<DnsRecord> {
    const name = canonicalName(zone);
    return this.#write(async (c) => {
      // The serial's row lock comes first: it orders every record write of the zone, which is
      // also what keeps the cap exact across instances. An unknown zone ends here.
      if (!(await c.query("UPDATE zones SET serial = serial + 1 WHERE name = $1", [name])).rowCount) throw new Error(`unknown zone ${zone}`);
      if (cap !== undefined) {
        const { rows } = await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM dns_records WHERE zone = $1", [name]);
        if (rows[0].n >= cap) throw new CapReachedError(cap);
      }
      const { rows } = await c.query<RecordRow>("INSERT INTO dns_records (id, zone, name, type, data, priority, ttl, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *", [
        newId("rec"), name, record.name, record.type, record.data, record.priority, record.ttl, nowIso(),
      ]);
      return toRecord(rows[0]);
    });
  }

  async deleteRecord(zone: string, id: string): Promise<boolean> {
    const name = canonicalName(zone);
    return this.#write(async (c) => {
      if (!(await c.query("DELETE FROM dns_records WHERE zone = $1 AND id = $2", [name, id])).rowCount) return false;
      await c.query("UPDATE zones SET serial = serial + 1 WHERE name = $1", [name]);
      return true;
    });
  }

  async changeToken(): Promise<string> {
    await this.#listening;
    // While the listening session is down, every read is a new token: nothing is kept.
    if (!this.#db.listening()) return `down:${++this.#own}`;
    return `${this.#notified}:${this.#own}`;
  }

  /** A write and its notification in one transaction; the own token moves once it committed. */
  async #write<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = await this.#db.tx(async (c) => {
      const r = await fn(c);
      await notify(c, ZONES_CHANNEL);
      return r;
    });
    this.#own++;
    return result;
  }
}
