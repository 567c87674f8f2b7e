// The neutral DDL vocabulary, word by word, on each store.
import { describe, expect, it } from "vitest";
import { ddlFor } from "./ddl.ts";

const cases: [string, string, string][] = [
  // neutral, SQLite, PostgreSQL
  ["flag BOOLEAN NOT NULL DEFAULT FALSE", "flag INTEGER NOT NULL DEFAULT 0", "flag BOOLEAN NOT NULL DEFAULT FALSE"],
  ["active boolean NOT NULL DEFAULT true", "active INTEGER NOT NULL DEFAULT 1", "active boolean NOT NULL DEFAULT true"],
  ["at BIGINT NOT NULL", "at INTEGER NOT NULL", "at BIGINT NOT NULL"],
  ["raw BYTEA NOT NULL", "raw BLOB NOT NULL", "raw BYTEA NOT NULL"],
  ["id SERIAL_KEY,", "id INTEGER PRIMARY KEY,", "id BIGSERIAL PRIMARY KEY,"],
  ["id SERIAL_KEY_ONCE,", "id INTEGER PRIMARY KEY AUTOINCREMENT,", "id BIGSERIAL PRIMARY KEY,"],
  [") WITHOUT ROWID;", ") WITHOUT ROWID;", ");"],
  // Words inside names and comments stay as they are.
  ["is_boolean_ish TEXT -- a BOOLEAN in words", "is_boolean_ish TEXT -- a BOOLEAN in words", "is_boolean_ish TEXT -- a BOOLEAN in words"],
  ["note TEXT DEFAULT 'x' CHECK (note <> '')", "note TEXT DEFAULT 'x' CHECK (note <> '')", "note TEXT DEFAULT 'x' CHECK (note <> '')"],
];

describe("ddlFor", () => {
  it.each(cases)("%s", (neutral, sqlite, postgres) => {
    expect(ddlFor("sqlite", neutral)).toBe(sqlite);
    expect(ddlFor("postgres", neutral)).toBe(postgres);
  });
});
