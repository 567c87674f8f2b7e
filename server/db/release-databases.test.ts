// Databases made by the release before one-list migrations (9cecd55): the fixtures beside this
// file were created and filled by that release's own code (fixtures/make-release-databases.ts,
// which regenerates them). Two questions, on SQLite and on PostgreSQL:
// - does a fresh database get exactly the schema that release's migrations produced (tables,
//   columns with types, nullability and defaults, keys, constraints, indexes, triggers)?
// - does a database of that release open with this code, keep its rows and take new writes?
// And a database from an older build (a partial history) is refused with what to do.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../../test/support/postgres.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { apiFor, startTestPlatform } from "../test/harness.ts";
import { RELEASE_API_KEY, RELEASE_SERVER_KEY } from "./fixtures/make-release-databases.ts";
import { postgresShape, sqliteShape } from "../test/schema-shape.ts";
import { openDatabase } from "./database.ts";
import { migrations } from "./migrations.ts";
import { openPostgres } from "./postgres/migrations.ts";
import type { Pg } from "./postgres/pg.ts";
import { storeOnPostgres } from "./postgres/postgres-store.ts";
import { releaseHistory } from "./release-history.ts";
import { bool, type Sql } from "./sql.ts";
import { storeOnSqlite } from "./sqlite-store.ts";

const fixtures = path.join(import.meta.dirname, "fixtures");
const sqliteFixture = path.join(fixtures, "release-9cecd55.sqlite");
// pg_dump's \restrict lines are psql meta-commands; the rest is plain SQL.
const pgDump = readFileSync(path.join(fixtures, "release-9cecd55.pg.sql"), "utf8").replace(/^\\.*$/gm, "");

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "release-db-"));
  dirs.push(dir);
  return dir;
};

/** A data folder holding the release's SQLite file. */
function releaseSqliteDir(): string {
  const dir = tempDir();
  copyFileSync(sqliteFixture, path.join(dir, "platform.sqlite"));
  return dir;
}

let cluster: PostgresCluster;
const open: Pg[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  await Promise.all(open.map((db) => db.close()));
  await cluster?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A new PostgreSQL database restored from the release's dump, not migrated. */
async function releasePostgresUrl(): Promise<string> {
  const url = await cluster.newDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(pgDump);
  } finally {
    await client.end();
  }
  return url;
}

async function openedPostgres(url: string): Promise<Pg> {
  const db = await openPostgres(url, { max: 2 });
  open.push(db);
  return db;
}

// Compared with the release's database migrated by this code: the baselines must be exactly what
// the release made, and every later migration (from version 200) must do the same to both.
describe("a fresh database has the schema of release 9cecd55 with the migrations after it", () => {
  it("SQLite", () => {
    // A copy, migrated by this code (the migrations after the release's baselines).
    const release = openDatabase(releaseSqliteDir());
    const fresh = openDatabase(tempDir());
    try {
      const expected = sqliteShape(release);
      expect(Object.keys(expected).length).toBeGreaterThan(30);
      expect(sqliteShape(fresh)).toEqual(expected);
    } finally {
      release.close();
      fresh.close();
    }
  });

  it("PostgreSQL", async () => {
    const release = await openedPostgres(await releasePostgresUrl());
    const fresh = await openedPostgres(await cluster.newDatabase());
    const expected = await postgresShape(release);
    expect(Object.keys(expected).length).toBeGreaterThan(30);
    expect(await postgresShape(fresh)).toEqual(expected);
  });
});

async function connectOnly(url: string): Promise<Pg> {
  const { connectPostgres } = await import("./postgres/pg.ts");
  const db = await connectPostgres(url, { max: 2 });
  open.push(db);
  return db;
}

/** What both stores must still do with the release's rows: read them, and write next to them. */
async function keepsWorking(store: Sql): Promise<void> {
  const projects = new SqlProjectRepository(store);
  const old = await projects.get("prj_old");
  expect(old).toMatchObject({ id: "prj_old", name: "Made by the release" });
  const domain = await store.get<{ status: string; dkim_private_key_sealed: string }>("SELECT status, dkim_private_key_sealed FROM mail_domains WHERE id = ?", ["dom_old"]);
  expect(domain).toMatchObject({ status: "verified", dkim_private_key_sealed: expect.stringMatching(/^v1\./) });
  const box = await store.get<{ shared: unknown; used_bytes: number }>("SELECT shared, used_bytes FROM mailboxes WHERE id = ?", ["mbx_old"]);
  expect({ shared: bool(box?.shared), used: Number(box?.used_bytes) }).toEqual({ shared: true, used: 5 });
  const message = await store.get<{ raw: Uint8Array; quarantined: unknown }>("SELECT c.raw, m.quarantined FROM mailbox_messages m JOIN message_contents c ON c.id = m.content_id WHERE m.mailbox_id = ?", ["mbx_old"]);
  expect(Buffer.from(message!.raw).toString()).toBe("Subject: hello\r\n\r\nold body\r\n");
  expect(bool(message!.quarantined)).toBe(true);
  expect(await store.get("SELECT kind, attempts FROM jobs")).toEqual({ kind: "old-kind", attempts: 0 });

  // Writes: a new project through its repository, a second message (counts kept by the store's
  // own means: SQLite's triggers, PostgreSQL's delivery code writes last_uid itself), a delivery
  // whose id follows the release's.
  const created = await projects.create("made by this code");
  expect((await projects.get(created.id))?.name).toBe("made by this code");
  await store.transaction(async (tx) => {
    const content = await tx.get<{ id: number }>("INSERT INTO message_contents (raw, size, detail) VALUES (?, ?, ?) RETURNING id", [Buffer.from("x"), 1, "{}"]);
    await tx.run(
      "INSERT INTO mailbox_messages (mailbox_id, uid, content_id, received_ms, subject, from_json, from_addrs, to_addrs, has_attachment, rfc_message_id, preview) VALUES (?, 2, ?, ?, 's', '{}', ' a@b.example ', ' ann@old.example ', ?, '<m2@b.example>', '')",
      ["mbx_old", Number(content!.id), 1793527300000, false],
    );
  });
  const messages = await store.all<{ uid: number; quarantined: unknown }>("SELECT uid, quarantined FROM mailbox_messages WHERE mailbox_id = ? ORDER BY uid", ["mbx_old"]);
  expect(messages.map((m) => [Number(m.uid), bool(m.quarantined)])).toEqual([[1, true], [2, false]]);
  const delivery = await store.get<{ id: number }>(
    "INSERT INTO webhook_deliveries (webhook_id, event, status, payload, created_at) VALUES (?, 'message.sent', 'pending', '{}', ?) RETURNING id",
    ["whk_old", new Date().toISOString()],
  );
  expect(Number(delivery!.id)).toBe(2);
  // Removing the mailbox releases both contents (the release's trigger, unchanged).
  await store.run("DELETE FROM group_members WHERE mailbox_id = ?", ["mbx_old"]);
  await store.run("DELETE FROM mailboxes WHERE id = ?", ["mbx_old"]);
  expect(Number((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM message_contents"))!.n)).toBe(0);
}

describe("a database of release 9cecd55 opens and keeps working", () => {
  it("SQLite: the baselines are marked applied, no statement of them runs, rows and writes work", async () => {
    const dir = releaseSqliteDir();
    const db = openDatabase(dir);
    try {
      const recorded = (db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[]).map((r) => r.version);
      expect(recorded).toEqual([...releaseHistory.sqlite, ...migrations.map((m) => m.version).sort((a, b) => a - b)]);
      await keepsWorking(storeOnSqlite(db));
    } finally {
      db.close();
    }
    // And once more: nothing left to do.
    openDatabase(dir).close();
  });

  it("PostgreSQL: the baselines are marked applied, rows and writes work", async () => {
    const db = await openedPostgres(await releasePostgresUrl());
    const recorded = (await db.query<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version")).map((r) => r.version);
    expect(recorded).toEqual([...releaseHistory.postgres, ...migrations.map((m) => m.version).sort((a, b) => a - b)]);
    await keepsWorking(storeOnPostgres(db));
  });
});

/** The server itself on the release's database: the release's key reads the release's mailboxes and creates one. */
async function servesTheRelease(overrides: Record<string, unknown>): Promise<void> {
  const platform = await startTestPlatform(overrides);
  try {
    const api = apiFor(platform.url, RELEASE_API_KEY);
    const list = await api("GET", "/v1/mailboxes");
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain("ann@old.example");
    const created = await api("POST", "/v1/mailboxes", { name: "bob", domain: "old.example", password: "correct horse battery" });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200, body: { email: "bob@old.example" } });
    expect(JSON.stringify((await api("GET", "/v1/mailboxes")).body)).toContain("bob@old.example");
  } finally {
    await platform.close();
  }
}

describe("the server starts on a database of release 9cecd55 and serves it", () => {
  // The key the release sealed the DKIM key and the webhook secret with.
  const saved = process.env.PLATFORM_SERVER_KEY;
  beforeAll(() => void (process.env.PLATFORM_SERVER_KEY = RELEASE_SERVER_KEY));
  afterAll(() => {
    if (saved === undefined) delete process.env.PLATFORM_SERVER_KEY;
    else process.env.PLATFORM_SERVER_KEY = saved;
  });

  it("SQLite", async () => {
    await servesTheRelease({ dataDir: releaseSqliteDir() });
  });

  it("PostgreSQL", async () => {
    await servesTheRelease({ databaseUrl: await releasePostgresUrl() });
  });
});

describe("a database of an older build is refused with what to do", () => {
  const refusal = /made by a build older than release 9cecd55 \(schema versions [\d, ]+\): open it once with release 9cecd55/;

  it("SQLite", () => {
    const dir = releaseSqliteDir();
    const old = new DatabaseSync(path.join(dir, "platform.sqlite"));
    old.exec("DELETE FROM schema_migrations WHERE version = 60");
    old.close();
    expect(() => openDatabase(dir)).toThrow(refusal);
  });

  it("PostgreSQL", async () => {
    const url = await releasePostgresUrl();
    const old = await connectOnly(url);
    await old.query("DELETE FROM schema_migrations WHERE version = 60");
    await expect(openPostgres(url, { max: 2 })).rejects.toThrow(refusal);
  });
});
