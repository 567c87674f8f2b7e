// The migration histories of the last release before one-list migrations (commit 9cecd55): each
// dialect had its own version set, PostgreSQL's first migrations creating its tables in the shape
// SQLite's had reached by then. A database whose schema_migrations holds exactly its dialect's set
// has the schema every area's baseline describes (db/schema.test.ts compares them); any other set
// below FIRST_VERSION is a partial, older history, which db/migrate.ts refuses.
import type { Dialect } from "./sql.ts";

export const RELEASE = "9cecd55";

/** Versions from here on belong to the one list; everything below is the old per-dialect history. */
export const FIRST_VERSION = 100;

export const releaseHistory: Record<Dialect["kind"], number[]> = {
  sqlite: [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 20, 25, 30, 40, 41, 42, 44, 50, 60],
  postgres: [1, 2, 3, 4, 5, 7, 9, 10, 20, 25, 30, 40, 43, 44, 50, 60],
};
