// Group commit (decision SP1): the writes started in one turn share one transaction and one
// commit, and each caller still gets what a transaction of its own gave it: atomic work, the
// writes of the callers before it visible, an answer only once its rows are committed.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, beforeEach, expect, it } from "vitest";
import { openDatabase } from "./database.ts";
import { inGroupCommit } from "./group-commit.ts";

let dir: string;
let db: DatabaseSync;
let statements: string[];
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "group-commit-"));
  db = openDatabase(dir);
  db.exec("CREATE TABLE items (name TEXT PRIMARY KEY)");
  const exec = db.exec.bind(db);
  statements = [];
  db.exec = (sql: string) => {
    statements.push(sql);
    exec(sql);
  };
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const insert = (name: string) => () => db.prepare("INSERT INTO items (name) VALUES (?)").run(name);
const names = (from: DatabaseSync = db) => (from.prepare("SELECT name FROM items ORDER BY name").all() as { name: string }[]).map((r) => r.name);

it("commits the writes started in one turn with one COMMIT", async () => {
  await Promise.all(["a", "b", "c", "d", "e"].map((n) => inGroupCommit(db, insert(n))));
  expect(names()).toEqual(["a", "b", "c", "d", "e"]);
  expect(statements.filter((s) => s === "COMMIT")).toHaveLength(1);
  expect(statements.filter((s) => s.startsWith("BEGIN"))).toEqual(["BEGIN IMMEDIATE"]);
});

it("rolls back only the member that threw, and rejects only its promise", async () => {
  const results = await Promise.allSettled([
    inGroupCommit(db, insert("a")),
    inGroupCommit(db, () => {
      insert("b")();
      throw new Error("cap reached");
    }),
    inGroupCommit(db, insert("a")), // a primary key conflict with the first member
    inGroupCommit(db, insert("c")),
  ]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
  expect((results[1] as PromiseRejectedResult).reason.message).toBe("cap reached");
  expect(names()).toEqual(["a", "c"]);
});

it("lets each member see the writes of the members before it (a cap checked inside the transaction holds)", async () => {
  const underCap = () => {
    const n = (db.prepare("SELECT COUNT(*) AS n FROM items").get() as { n: number }).n;
    if (n >= 3) throw new Error("cap of 3 reached");
    insert(`item${n}`)();
  };
  const results = await Promise.allSettled(Array.from({ length: 6 }, () => inGroupCommit(db, underCap)));
  expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
  expect(names()).toEqual(["item0", "item1", "item2"]);
});

it("answers only after the commit: another connection sees the row when the promise settles", async () => {
  const other = new DatabaseSync(path.join(dir, "platform.sqlite"));
  try {
    const seen = await Promise.all(["a", "b"].map((n) => inGroupCommit(db, insert(n)).then(() => names(other))));
    expect(seen).toEqual([["a", "b"], ["a", "b"]]);
  } finally {
    other.close();
  }
});

it("runs later callers in a later commit, and more than 256 waiting members in several", async () => {
  await inGroupCommit(db, insert("first"));
  await Promise.all(Array.from({ length: 300 }, (_, i) => inGroupCommit(db, insert(`n${i}`))));
  expect(names()).toHaveLength(301);
  expect(statements.filter((s) => s === "COMMIT")).toHaveLength(3);
});

it("refuses work that returns a promise (it would run outside its savepoint) and keeps the others", async () => {
  const results = await Promise.allSettled([inGroupCommit(db, insert("a")), inGroupCommit(db, async () => insert("b")())]);
  expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
  expect(names()).toEqual(["a"]);
});

it("rejects the members still waiting when the database closed before their commit", async () => {
  const waiting = inGroupCommit(db, insert("a"));
  db.close();
  await expect(waiting).rejects.toThrow("closed before the commit");
  db = openDatabase(dir); // for afterEach
});
