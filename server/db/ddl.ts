// The neutral DDL vocabulary migrations are written in (db/migration.ts): PostgreSQL's type names,
// which SQLite's type affinity would accept as well, translated here to what SQLite's schema has
// always said, so a database created today has the same schema text as one created by the releases
// before (INTEGER for booleans and epoch milliseconds, 0/1 defaults, BLOB for bytes).
//
//   BOOLEAN            SQLite INTEGER (0/1; decode with bool() of db/sql.ts)
//   DEFAULT TRUE/FALSE SQLite DEFAULT 1 / DEFAULT 0
//   BIGINT             SQLite INTEGER (64 bits either way)
//   BYTEA              SQLite BLOB
//   SERIAL_KEY         a generated integer key: SQLite INTEGER PRIMARY KEY (the rowid; a deleted
//                      top id may come back), PostgreSQL BIGSERIAL PRIMARY KEY
//   SERIAL_KEY_ONCE    the same, never handed out twice: SQLite adds AUTOINCREMENT
//   WITHOUT ROWID      SQLite's clustered table; PostgreSQL has no such option and drops it
//
// Anything else is written the same on both (CHECK, REFERENCES, partial indexes, ON CONFLICT).
import type { Dialect } from "./sql.ts";

const words: Record<Dialect["kind"], [RegExp, string][]> = {
  sqlite: [
    [/\bSERIAL_KEY_ONCE\b/gi, "INTEGER PRIMARY KEY AUTOINCREMENT"],
    [/\bSERIAL_KEY\b/gi, "INTEGER PRIMARY KEY"],
    [/\bBOOLEAN\b/gi, "INTEGER"],
    [/\bBIGINT\b/gi, "INTEGER"],
    [/\bBYTEA\b/gi, "BLOB"],
    [/\bDEFAULT TRUE\b/gi, "DEFAULT 1"],
    [/\bDEFAULT FALSE\b/gi, "DEFAULT 0"],
  ],
  postgres: [
    [/\bSERIAL_KEY_ONCE\b/gi, "BIGSERIAL PRIMARY KEY"],
    [/\bSERIAL_KEY\b/gi, "BIGSERIAL PRIMARY KEY"],
    [/\s*\bWITHOUT ROWID\b/gi, ""],
  ],
};

/** The statements of a neutral DDL text as the given store spells them. Comments pass unchanged. */
export function ddlFor(kind: Dialect["kind"], sql: string): string {
  return sql
    .split("\n")
    .map((line) => {
      const at = line.indexOf("--");
      const code = at < 0 ? line : line.slice(0, at);
      const comment = at < 0 ? "" : line.slice(at);
      return words[kind].reduce((text, [word, replacement]) => text.replace(word, replacement), code) + comment;
    })
    .join("\n");
}
