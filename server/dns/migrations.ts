// Schema of the DNS area: zones need no project row (the console creates zones before binding
// them to a project); records go with their zone. `zones.serial` is bumped by every write of a
// record (the zone repository); a record written by other SQL must bump it too, or secondaries and
// caches keep the old answer.
import type { Migration } from "../db/migration.ts";

export const dnsMigrations: Migration[] = [
  {
    version: 102,
    name: "dns zones and records (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE zones (
        name TEXT PRIMARY KEY,
        project_id TEXT,
        registrar_requires_data BOOLEAN NOT NULL DEFAULT FALSE,
        serial BIGINT NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
      );
      CREATE INDEX zones_project ON zones (project_id);
      CREATE TABLE dns_records (
        id TEXT PRIMARY KEY,
        zone TEXT NOT NULL REFERENCES zones (name) ON DELETE CASCADE,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        priority INTEGER,
        ttl INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX dns_records_zone_name ON dns_records (zone, name);`,
  },
];
