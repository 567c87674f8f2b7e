#!/usr/bin/env node
// The console: `platform-admin` (npm bin) or `npm run admin -- <command>`.
import { SqliteKeyRepository } from "../auth/sqlite-key-repository.ts";
import { scopeCatalogue } from "../auth/scopes.ts";
import { loadConfig } from "../config.ts";
import { openDatabase } from "../db/database.ts";
import { assertPostgresComplete } from "../db/postgres/coverage.ts";
import { SqliteDnsRecordRepository } from "../dns/sqlite-zone-repository.ts";
import { SqliteTemplateRepository } from "../mail-sending/sqlite-template-repository.ts";
import { SqliteBotRepository } from "../messenger/sqlite-bot-repository.ts";
import { SqliteProjectRepository } from "../projects/sqlite-project-repository.ts";
import { runCommand, UsageError } from "./commands.ts";

const config = loadConfig();
if (config.databaseUrl) {
  try {
    assertPostgresComplete();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
const db = openDatabase(config.dataDir);
try {
  const out = await runCommand(
    {
      projects: new SqliteProjectRepository(db), keys: new SqliteKeyRepository(db), zones: new SqliteDnsRecordRepository(db), scopes: scopeCatalogue(),
      templates: new SqliteTemplateRepository(db), bots: new SqliteBotRepository(db), allowHttpLoopback: config.allowHttpLoopbackWebhooks,
    },
    process.argv.slice(2),
  );
  console.log(out);
} catch (error) {
  console.error(`platform-admin: ${(error as Error).message}`);
  process.exitCode = error instanceof UsageError ? 2 : 1;
} finally {
  db.close();
}
