// Migration 204 (decision O8) on a store that already holds claims that ended before it: their
// mailboxes are released (address freed, stored mail kept) and leave every group, their groups and
// webmail sessions go, and the addresses of claims still held are untouched. On SQLite and on PostgreSQL, from the
// schema just before 204, through the one runner.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../../test/support/postgres.ts";
import { migrate } from "../db/migrate.ts";
import { migrations } from "../db/migrations.ts";
import { connectPostgres, type Pg } from "../db/postgres/pg.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import type { Sql } from "../db/sql.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { backends } from "../test/backends.ts";

const VERSION = 204;
const before = migrations.filter((m) => m.version < VERSION);

let cluster: PostgresCluster | undefined;
const dir = mkdtempSync(path.join(tmpdir(), "release-migration-"));
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0)) await c();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function storeOf(backend: (typeof backends)[number]): Promise<Sql> {
  if (backend === "sqlite") {
    const db = new DatabaseSync(path.join(dir, "before-204.sqlite"));
    db.exec("PRAGMA foreign_keys = ON");
    cleanups.push(() => db.close());
    return storeOnSqlite(db);
  }
  cluster ??= await startPostgres();
  const pg: Pg = await connectPostgres(await cluster.newDatabase(), { max: 2 });
  cleanups.push(() => pg.close());
  return storeOnPostgres(pg);
}

describe.each(backends)("migration 204 on %s", (backend) => {
  let sql: Sql;
  beforeAll(async () => {
    sql = await storeOf(backend);
    await migrate(sql, before);
    const now = "2026-11-01T00:00:00.000Z";
    for (const p of ["prj_a", "prj_c"]) await sql.run("INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)", [p, p, now]);
    const claim = (id: string, project: string, status: string, checked: string | null, name = "own.example") =>
      sql.run(
        `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at, status, checked_at)
         VALUES (?, ?, ?, 'platform', 'sealed', 'public', ?, ?, ?, ?)`,
        [id, project, name, id, now, status, checked]);
    await claim("dom_a", "prj_a", "ended", "2026-11-02T00:00:00.000Z");
    await claim("dom_c", "prj_c", "verified", null);
    await claim("dom_a2", "prj_a", "verified", null, "other.example");
    const box = (id: string, project: string, domain: string, kind: string, email: string) =>
      sql.run("INSERT INTO mailboxes (id, project_id, domain_id, kind, email, created_at) VALUES (?, ?, ?, ?, ?, ?)", [id, project, domain, kind, email, now]);
    await box("mbx_a", "prj_a", "dom_a", "mailbox", "ceo@own.example");
    await box("grp_a", "prj_a", "dom_a", "group", "all@own.example");
    await box("mbx_c", "prj_c", "dom_c", "mailbox", "info@own.example");
    // A group of A on a name A still holds, with members on both names.
    await box("grp_a2", "prj_a", "dom_a2", "group", "team@other.example");
    await box("mbx_a2", "prj_a", "dom_a2", "mailbox", "ops@other.example");
    for (const [group, member] of [["grp_a", "mbx_a"], ["grp_a2", "mbx_a"], ["grp_a2", "mbx_a2"]])
      await sql.run("INSERT INTO group_members (group_id, mailbox_id, created_at) VALUES (?, ?, ?)", [group, member, now]);
    await sql.run("INSERT INTO webmail_sessions (id_hash, mailbox_id, expires_at) VALUES ('s_a', 'mbx_a', 9999999999999)");
    await sql.run("INSERT INTO webmail_sessions (id_hash, mailbox_id, expires_at) VALUES ('s_c', 'mbx_c', 9999999999999)");
    expect(await migrate(sql, migrations)).toContain(VERSION);
  });

  it("releases the ended claim's mailboxes, deletes its groups and sessions, and leaves the held claim's alone", async () => {
    expect(await sql.all("SELECT id, email, released_email, released_at FROM mailboxes ORDER BY id")).toEqual([
      { id: "grp_a2", email: "team@other.example", released_email: null, released_at: null },
      { id: "mbx_a", email: "mbx_a", released_email: "ceo@own.example", released_at: "2026-11-02T00:00:00.000Z" },
      { id: "mbx_a2", email: "ops@other.example", released_email: null, released_at: null },
      { id: "mbx_c", email: "info@own.example", released_email: null, released_at: null },
    ]);
    expect(await sql.all("SELECT id_hash FROM webmail_sessions ORDER BY id_hash")).toEqual([{ id_hash: "s_c" }]);
    expect(await sql.all("SELECT group_id, mailbox_id FROM group_members")).toEqual([{ group_id: "grp_a2", mailbox_id: "mbx_a2" }]);
    // The freed address is the new owner's to take.
    await sql.run("INSERT INTO mailboxes (id, project_id, domain_id, kind, email, created_at) VALUES ('mbx_c2', 'prj_c', 'dom_c', 'mailbox', 'ceo@own.example', ?)", [new Date().toISOString()]);
    expect((await sql.all("SELECT id FROM mailboxes WHERE email = 'ceo@own.example'"))).toEqual([{ id: "mbx_c2" }]);
  });
});
