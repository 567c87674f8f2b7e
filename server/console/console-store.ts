// What the console (platform-admin) works on, built from the store the server runs on: the same
// repositories, so its writes notify as the server's do and every running instance drops its
// caches (keys, zones).
import { SqlKeyRepository } from "../auth/key-repository.ts";
import type { Store } from "../db/sql.ts";
import { SqlDnsRecordRepository } from "../dns/zone-repository.ts";
import { SqlBotRepository } from "../messenger/bot-repository.ts";
import { systemClock } from "../jobs/clock.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { SqlSuppressionRepository } from "../suppressions/suppression-repository.ts";
import type { ConsoleStore } from "./commands.ts";

/** The console's repositories on store; the compositions add those of areas still written per store (templates). */
export function consoleStoreOn(store: Store): ConsoleStore {
  return {
    projects: new SqlProjectRepository(store),
    keys: new SqlKeyRepository(store),
    // The console serves no DNS: its zones keep no prepared copy, so their change token is unused.
    zones: new SqlDnsRecordRepository(store, () => true),
    bots: new SqlBotRepository(store),
    suppressions: new SqlSuppressionRepository(store, systemClock),
  };
}
