#!/usr/bin/env node
// The console: `platform-admin` (npm bin) or `npm run admin -- <command>`. Works on the store the
// server runs on: PostgreSQL when DATABASE_URL is set, the SQLite file in DATA_DIR otherwise.
import { scopeCatalogue } from "../auth/scopes.ts";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/database.ts";
import { openPostgres } from "../db/postgres/migrations.ts";
import { postgresConsoleStore } from "../db/postgres/pg-services.ts";
import { sqliteConsoleStore } from "../db/sqlite-services.ts";
import { runCommand, UsageError, type ConsoleStore } from "./commands.ts";

const config = loadConfig();
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
try {
  const out = await runCommand({ ...store, scopes: scopeCatalogue(), allowHttpLoopback: config.allowHttpLoopbackWebhooks }, process.argv.slice(2));
  console.log(out);
} catch (error) {
  console.error(`platform-admin: ${(error as Error).message}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  await close();
}
