// Schema of the DNS area on PostgreSQL (sqlite-zone-repository.ts's dnsMigrations): zones need
// no project row (the console creates zones before binding them), as on SQLite.
import type { PgMigration } from "../db/postgres/migrations.ts";

export const dnsPgMigrations: PgMigration[] = [
  {
    version: 2,
    name: "dns zones and records",
    sql: `
      CREATE TABLE zones (
        name TEXT PRIMARY KEY,
        project_id TEXT,
        registrar_requires_data BOOLEAN NOT NULL DEFAULT false,
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
