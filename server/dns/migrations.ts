// The DNS area's SQLite schema, for the core's migration runner (db/migrations.ts), moved here
// unchanged from sqlite-zone-repository.ts when the repository was written once over Sql (issue 37).

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
