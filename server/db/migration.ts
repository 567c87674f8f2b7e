// A schema migration, the port every area writes its list against (the composer, db/migrations.ts,
// only gathers the lists; areas import this file, never the composer). Written once for both
// stores: `sql` in the neutral vocabulary of db/ddl.ts; what only one store has (its own
// features: triggers, extensions, tables only several instances need) in `sqlite` / `postgres`.
// Never edit a released migration: append one with the next free version.
import type { Sql } from "./sql.ts";

export interface Migration {
  version: number;
  name: string;
  /** Statements for both stores, in the neutral vocabulary (db/ddl.ts). */
  sql?: string;
  /** Statements only SQLite runs, after `sql`, in SQLite's own spelling. */
  sqlite?: string;
  /** Statements only PostgreSQL runs, after `sql`, in PostgreSQL's own spelling. */
  postgres?: string;
  /**
   * Data changes SQL alone cannot make (sealing with the server key): runs after the statements,
   * in the migration's transaction, through the store.
   */
  up?: (tx: Sql, context: MigrationContext) => Promise<void>;
  /**
   * A baseline: the area's schema as the release before one-list migrations (9cecd55) left it.
   * A database made by that release already has it and gets it marked applied (db/migrate.ts).
   */
  baseline?: boolean;
}

export interface MigrationContext {
  /** The server key (server/secrets/server-key.ts), read only when a migration needs it. */
  serverKey: () => Buffer;
}

export const noContext: MigrationContext = {
  serverKey: () => {
    throw new Error("this migration needs the server key; open the database with openDatabase");
  },
};
