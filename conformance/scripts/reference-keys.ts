// The reference run's scoped keys (config keys.withScopes / keys.revoke as functions), made and
// revoked by the console's own commands (server/console/commands.ts) on the store the server runs
// on, in the suite's process. As shell commands they were one platform-admin process each: 22
// keys made and 22 revoked, about a second of CPU per process start on this 2-core machine, most
// of a run's wall time (bench/conformance, conformance/README.md "Numbers"). The keys, their
// scopes and their revocation are the console's, exactly as `platform-admin keys create` makes them.
import { scopeCatalogue } from "../../server/auth/scopes.ts";
import { runCommand, type ConsoleDeps } from "../../server/console/commands.ts";
import { openDatabase } from "../../server/db/database.ts";
import { openPostgres } from "../../server/db/postgres/migrations.ts";
import { postgresConsoleStore } from "../../server/db/postgres/pg-services.ts";
import { sqliteConsoleStore } from "../../server/db/sqlite-services.ts";

export interface ConsoleKeysOptions {
  /** SQLite: the server's DATA_DIR; ignored when databaseUrl is set */
  dataDir: string;
  databaseUrl?: string;
  project: string;
  rateLimit: number;
}

// Open stores, closed by closeConsoleKeys() (a PostgreSQL pool would keep the process alive).
const open = new Set<() => Promise<void> | void>();

export interface ConsoleKeys {
  withScopes(scopes: string[]): Promise<string>;
  revoke(key: string): Promise<void>;
}

/** The console's commands on the server's store, in this process: `platform-admin ARGS` without the process start. */
export function consoleCommand(opts: { dataDir: string; databaseUrl?: string }): (args: string[]) => Promise<string> {
  let deps: Promise<ConsoleDeps> | undefined;
  const store = () =>
    (deps ??= (async () => {
      if (opts.databaseUrl) {
        const pg = await openPostgres(opts.databaseUrl, { max: 1 });
        open.add(() => pg.close());
        return { ...postgresConsoleStore(pg), scopes: scopeCatalogue() };
      }
      const db = openDatabase(opts.dataDir);
      open.add(() => db.close());
      return { ...sqliteConsoleStore(db), scopes: scopeCatalogue() };
    })());
  return async (args) => runCommand(await store(), args);
}

export function consoleKeys(opts: ConsoleKeysOptions): ConsoleKeys {
  const run = consoleCommand(opts);
  const ids = new Map<string, string>();
  return {
    async withScopes(scopes) {
      const out = await run(["keys", "create", "--project", opts.project, "--scopes", scopes.join(",") || "none", "--rate-limit", String(opts.rateLimit)]);
      // "created key key_… for prj_…", and the key as the last word (what the command prints).
      const key = out.trim().split(/\s+/).pop()!;
      ids.set(key, /created key (\S+)/.exec(out)![1]);
      return key;
    },
    async revoke(key) {
      const id = ids.get(key);
      if (!id) throw new Error("not a key this console made");
      await run(["keys", "revoke", id]);
    },
  };
}

export async function closeConsoleKeys(): Promise<void> {
  const closing = [...open];
  open.clear();
  await Promise.all(closing.map((close) => close()));
}
