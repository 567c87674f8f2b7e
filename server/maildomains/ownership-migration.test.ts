// Migration 7 on a database of the release before it, on both stores: every domain row and the
// mailboxes that reference it survive, a domain whose zone its own project hosts here starts
// verified (decision O3), every other starts pending (the start-up sweep schedules its check),
// and a second project may now claim a name one project already holds.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../../test/support/postgres.ts";
import { openDatabase } from "../db/database.ts";
import { migrations, runMigrations } from "../db/migrations.ts";
import { pgMigrations, runPgMigrations } from "../db/postgres/migrations.ts";
import { connectPostgres } from "../db/postgres/pg.ts";

const now = "2026-01-01T00:00:00.000Z";
// The rows of an installation before issue 28: prj_a hosts a.test and connected it and mail.a.test,
// x.b.test (inside b.test, which prj_b hosts) and elsewhere.example (hosted nowhere).
const before = [
  "INSERT INTO projects (id, name, created_at) VALUES ('prj_a', 'a', '2026-01-01'), ('prj_b', 'b', '2026-01-01')",
  "INSERT INTO zones (name, project_id, created_at) VALUES ('a.test', 'prj_a', '2026-01-01'), ('b.test', 'prj_b', '2026-01-01')",
  `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at) VALUES
     ('dom_apex', 'prj_a', 'a.test', 'platform', 'v1.sealed', 'pub', 'tok1', '${now}'),
     ('dom_sub', 'prj_a', 'mail.a.test', 'platform', 'v1.sealed', 'pub', 'tok2', '${now}'),
     ('dom_foreign', 'prj_a', 'x.b.test', 'platform', 'v1.sealed', 'pub', 'tok3', '${now}'),
     ('dom_ext', 'prj_a', 'elsewhere.example', 'platform', 'v1.sealed', 'pub', 'tok4', '${now}')`,
  `INSERT INTO mailboxes (id, project_id, domain_id, kind, email, created_at) VALUES ('mbx_1', 'prj_a', 'dom_apex', 'mailbox', 'ann@a.test', '${now}')`,
];
const expected = [
  { id: "dom_apex", status: "verified", verified_by: "hosting" },
  { id: "dom_ext", status: "pending", verified_by: null },
  { id: "dom_foreign", status: "pending", verified_by: null },
  { id: "dom_sub", status: "verified", verified_by: "hosting" },
];
const claimAgain = `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at)
  VALUES ('dom_b_ext', 'prj_b', 'elsewhere.example', 'platform', 'v1.sealed', 'pub', 'tok5', '${now}')`;
const secondOwner = "UPDATE mail_domains SET status = 'verified' WHERE id = 'dom_b_ext'";

describe("migration 7 on SQLite", () => {
  it("keeps every row and its mailboxes, verifies what the own project hosts, and allows a second claim of a name", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ownership-migration-"));
    try {
      const old = new DatabaseSync(path.join(dir, "platform.sqlite"));
      old.exec("PRAGMA foreign_keys = ON");
      // Migration 6 seals DKIM keys (none yet) with the server key.
      runMigrations(old, migrations.filter((m) => m.version < 7), { serverKey: () => randomBytes(32) });
      for (const sql of before) old.exec(sql);
      old.close();

      const db = openDatabase(dir);
      expect(db.prepare("SELECT id, status, verified_by FROM mail_domains ORDER BY id").all().map((r) => ({ ...r }))).toEqual(expected);
      expect(db.prepare("PRAGMA foreign_key_check").all()).toEqual([]);
      expect(() => db.exec("INSERT INTO mailboxes (id, project_id, domain_id, kind, email, created_at) VALUES ('mbx_2', 'prj_a', 'dom_gone', 'mailbox', 'x@a.test', 'now')")).toThrow(/FOREIGN KEY/);
      db.exec(claimAgain);
      expect(() => db.exec(claimAgain.replace("dom_b_ext", "dom_b_ext2"))).toThrow(/UNIQUE/);
      db.exec("UPDATE mail_domains SET status = 'verified' WHERE id = 'dom_ext'");
      expect(() => db.exec(secondOwner)).toThrow(/UNIQUE/);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("migration 7 on PostgreSQL", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(() => cluster?.stop());

  it("keeps every row and its mailboxes, verifies what the own project hosts, and allows a second claim of a name", async () => {
    const db = await connectPostgres(await cluster.newDatabase(), { max: 1 });
    try {
      await runPgMigrations(db, pgMigrations.filter((m) => m.version < 7));
      for (const sql of before) await db.query(sql);
      await runPgMigrations(db);
      expect(await db.query("SELECT id, status, verified_by FROM mail_domains ORDER BY id")).toEqual(expected);
      await db.query(claimAgain);
      await expect(db.query(claimAgain.replace("dom_b_ext", "dom_b_ext2"))).rejects.toThrow(/unique/);
      await db.query("UPDATE mail_domains SET status = 'verified' WHERE id = 'dom_ext'");
      await expect(db.query(secondOwner)).rejects.toThrow(/unique/);
    } finally {
      await db.close();
    }
  });
});
