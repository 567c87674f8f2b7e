#!/usr/bin/env node
// The console: `platform-admin` (npm bin) or `npm run admin -- <command>`. Works on the store the
// server runs on: PostgreSQL when DATABASE_URL is set, the SQLite file in DATA_DIR otherwise.
import { existsSync } from "node:fs";
import path from "node:path";
import { scopeCatalogue } from "../auth/scopes.ts";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/database.ts";
import { openPostgres } from "../db/postgres/migrations.ts";
import { connectPostgres } from "../db/postgres/pg.ts";
import { postgresConsoleStore } from "../db/postgres/pg-services.ts";
import { sqliteConsoleStore } from "../db/sqlite-services.ts";
import { runCommand, UsageError, type ConsoleStore } from "./commands.ts";

function fail(message: string, code = 1): never {
  console.error(`platform-admin: ${message}`);
  process.exit(code);
}

let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig();
} catch (error) {
  fail((error as Error).message);
}
// A typo in DATA_DIR must not create a second, empty database and answer "(none)" from it: only
// `store init` creates one (issue 42 item 5).
const init = process.argv[2] === "store" && process.argv[3] === "init";
const sqliteFile = path.join(config.dataDir, "platform.sqlite");
const exists = config.databaseUrl ? await postgresHasSchema(config.databaseUrl).catch((error: Error) => fail(`DATABASE_URL: cannot open the database (${error.message})`)) : existsSync(sqliteFile);
if (!exists && !init) {
  fail(config.databaseUrl ? "the database at DATABASE_URL has no platform schema; create it with `platform-admin store init` (or start the server once)" : `no database in DATA_DIR=${config.dataDir} (no platform.sqlite); check DATA_DIR, or create one with \`platform-admin store init\` (the server also creates it on its first start)`);
}
let store: ConsoleStore;
let close: () => Promise<void> | void;
try {
  if (config.databaseUrl) {
    // One connection for its statements, beside the listening session every Pg handle holds.
    const pg = await openPostgres(config.databaseUrl, { max: 1 });
    store = postgresConsoleStore(pg);
    close = () => pg.close();
  } else {
    const db = openDatabase(config.dataDir);
    store = sqliteConsoleStore(db);
    close = () => db.close();
  }
} catch (error) {
  console.error(`platform-admin: ${(error as Error).message}`);
  process.exit(1);
}
if (init) {
  await close();
  console.log(exists ? "the database exists already; nothing to do" : config.databaseUrl ? "created the platform schema at DATABASE_URL" : `created ${sqliteFile}`);
  process.exit(0);
}
try {
  const out = await runCommand({ ...store, scopes: scopeCatalogue(), allowHttpLoopback: config.allowHttpLoopbackWebhooks }, process.argv.slice(2));
  console.log(out);
} catch (error) {
  console.error(`platform-admin: ${(error as Error).message}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await close();
}

/** True when the database at url holds the platform's schema (its migrations table). */
async function postgresHasSchema(url: string): Promise<boolean> {
  const pg = await connectPostgres(url, { max: 1 });
  try {
    const [row] = await pg.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
    return row.t !== null;
  } finally {
    await pg.close();
  }
}
