// One schema for both stores (decisions P5, P8): every table PostgreSQL has, SQLite has with the
// same columns, apart from what only several instances need. A migration that adds a column in
// one store's own statements only (its `sqlite` or `postgres` part) fails here.
import { describe, expect, it } from "vitest";
import { sql, useStore } from "../../test/backends.ts";

/** Tables and columns only the PostgreSQL backend has, and why. */
const postgresOnly: Record<string, string[] | "table"> = {
  // The L1 rate limit, kept in memory by SQLite's single process (P4).
  rate_windows: "table",
  // The lease holder, so a dead instance's leases are void at once (P2).
  jobs: ["leased_by"],
  // The history's order, where SQLite orders by rowid.
  sent_message_events: ["seq"],
  // Each mailbox's last uid: the next one is one UPDATE on this row, whose lock orders two
  // instances storing into one mailbox (SQLite's single writer takes MAX(uid) + 1).
  mailbox_message_counts: ["last_uid"],
  // The order of links created in one millisecond, where SQLite orders by rowid.
  bot_links: ["seq"],
};

describe("schema parity between SQLite and PostgreSQL", () => {
  const sqlite = useStore("sqlite");
  const postgres = useStore("postgres");

  it("each PostgreSQL table exists on SQLite with the same columns", async () => {
    const pgColumns = await sql<{ table_name: string; column_name: string }>(
      postgres.main,
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_migrations'",
    );
    const tables = new Map<string, string[]>();
    for (const r of pgColumns) tables.set(r.table_name, [...(tables.get(r.table_name) ?? []), r.column_name]);
    expect(tables.size).toBeGreaterThan(0);
    for (const [table, columns] of tables) {
      const only = postgresOnly[table];
      if (only === "table") continue;
      const onSqlite = (await sql<{ name: string }>(sqlite.main, "SELECT name FROM pragma_table_info(?)", [table])).map((c) => c.name);
      expect({ table, columns: onSqlite.sort() }).toEqual({ table, columns: columns.filter((c) => !(only ?? []).includes(c)).sort() });
    }
  });
});
