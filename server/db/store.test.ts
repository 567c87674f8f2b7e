// The Store (db/sql.ts) behaves the same on both backends: the promises every repository is
// written against. Each case runs on SQLite and on PostgreSQL with the same assertions.
import { describe, expect, it, beforeAll } from "vitest";
import { backends, useStore } from "../test/backends.ts";
import type { Store } from "./sql.ts";
import { toPositional } from "./postgres/postgres-store.ts";

const tick = () => new Promise((resolve) => setImmediate(resolve));

for (const backend of backends) {
  describe(`store on ${backend}`, () => {
    const handle = useStore(backend);
    let store: Store;
    beforeAll(async () => {
      store = handle.main.store;
      await store.exec(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, flag BOOLEAN NOT NULL DEFAULT FALSE, data BYTEA)".replace(
          "BYTEA",
          backend === "sqlite" ? "BLOB" : "BYTEA",
        ),
      );
    });

    const count = async () =>
      Number((await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM t"))!.n);

    it("binds ? parameters, booleans and bytes alike, and answers changes", async () => {
      await store.run("DELETE FROM t");
      expect(
        await store.run("INSERT INTO t (id, name, flag, data) VALUES (?, ?, ?, ?)", [
          1,
          "it's ?",
          true,
          new Uint8Array([1, 2, 3]),
        ]),
      ).toEqual({ changes: 1 });
      const row = await store.get<{ name: string; flag: unknown; data: Uint8Array }>(
        "SELECT name, flag, data FROM t WHERE id = ? AND name = 'it''s ?'",
        [1],
      );
      expect(row!.name).toBe("it's ?");
      expect([true, 1]).toContain(row!.flag);
      expect([...row!.data]).toEqual([1, 2, 3]);
      expect(await store.get("SELECT * FROM t WHERE id = ?", [99])).toBeUndefined();
      expect((await store.run("UPDATE t SET flag = ? WHERE id > ?", [false, 0])).changes).toBe(1);
    });

    it("runs several writes as one step (runAll): in order, parameters in order, a child row checked against its parent at the end, all or nothing", async () => {
      await store.run("DELETE FROM t");
      await store.exec("CREATE TABLE IF NOT EXISTS t_child (parent INTEGER NOT NULL REFERENCES t (id), note TEXT NOT NULL)");
      await store.transaction(async (tx) => {
        await tx.runAll([
          ["INSERT INTO t (id, name, flag) VALUES (?, ?, ?)", [1, "first ?", true]],
          ["INSERT INTO t_child (parent, note) VALUES (?, ?)", [1, "of first"]],
          ["INSERT INTO t (id, name) VALUES (?, ?)", [2, "second"]],
        ]);
      });
      expect(await store.all("SELECT id, name FROM t ORDER BY id")).toEqual([{ id: 1, name: "first ?" }, { id: 2, name: "second" }]);
      expect(await store.all("SELECT parent, note FROM t_child")).toEqual([{ parent: 1, note: "of first" }]);
      // A child without its parent, and a duplicate key: the whole step fails and writes nothing.
      await expect(store.runAll([["INSERT INTO t (id, name) VALUES (?, ?)", [3, "third"]], ["INSERT INTO t_child (parent, note) VALUES (?, ?)", [9, "orphan"]]])).rejects.toThrow();
      await expect(
        store.transaction(async (tx) => {
          await tx.runAll([["INSERT INTO t (id, name) VALUES (?, ?)", [4, "fourth"]], ["INSERT INTO t (id, name) VALUES (?, ?)", [1, "again"]]]);
        }),
      ).rejects.toThrow();
      expect(await count()).toBe(2);
      await store.exec("DROP TABLE t_child");
    });

    it("commits a transaction that resolves and rolls back one that throws", async () => {
      await store.run("DELETE FROM t");
      await store.transaction(async (tx) => {
        await tx.run("INSERT INTO t (id, name) VALUES (?, ?)", [1, "kept"]);
      });
      await expect(
        store.transaction(async (tx) => {
          await tx.run("INSERT INTO t (id, name) VALUES (?, ?)", [2, "undone"]);
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(await store.all("SELECT name FROM t ORDER BY id")).toEqual([{ name: "kept" }]);
    });

    it("a nested transaction is a savepoint: its throw undoes its writes only", async () => {
      await store.run("DELETE FROM t");
      await store.transaction(async (tx) => {
        await tx.run("INSERT INTO t (id, name) VALUES (1, 'outer')");
        await expect(
          tx.transaction(async (inner) => {
            await inner.run("INSERT INTO t (id, name) VALUES (2, 'inner')");
            throw new Error("inner fails");
          }),
        ).rejects.toThrow("inner fails");
        await tx.transaction(
          async (inner) => void (await inner.run("INSERT INTO t (id, name) VALUES (3, 'second')")),
        );
      });
      expect(await store.all("SELECT id FROM t ORDER BY id")).toEqual([{ id: 1 }, { id: 3 }]);
    });

    it("a statement through the store inside a transaction joins it (ambient), and sees its rows", async () => {
      await store.run("DELETE FROM t");
      await expect(
        store.transaction(async () => {
          await store.run("INSERT INTO t (id, name) VALUES (1, 'ambient')");
          expect(await count()).toBe(1);
          throw new Error("undo");
        }),
      ).rejects.toThrow("undo");
      expect(await count()).toBe(0);
    });

    it("transactions that await between statements never see or interleave with each other", async () => {
      await store.run("DELETE FROM t");
      await store.run("INSERT INTO t (id, name) VALUES (0, '0')");
      // Read-modify-write of one counter by 20 concurrent transactions, each yielding to the event
      // loop between its read and its write: a lost update shows as a final value below 20.
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.transaction(async (tx) => {
            const row = await tx.get<{ name: string }>(
              `SELECT name FROM t WHERE id = 0 ${tx.dialect.forUpdate}`,
            );
            await tick();
            await tx.run("UPDATE t SET name = ? WHERE id = 0", [String(Number(row!.name) + 1)]);
          }),
        ),
      );
      expect((await store.get<{ name: string }>("SELECT name FROM t WHERE id = 0"))!.name).toBe(
        "20",
      );
    });

    it("a statement from outside waits for an open transaction instead of running inside it", async () => {
      await store.run("DELETE FROM t");
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const open = store.transaction(async (tx) => {
        await tx.run("INSERT INTO t (id, name) VALUES (1, 'a')");
        await gate;
        throw new Error("rolled back");
      });
      await tick();
      // Outside the transaction's context: must not see (or join) its uncommitted row.
      const outside = store.run("INSERT INTO t (id, name) VALUES (2, 'b')");
      const seen = store.all("SELECT id FROM t WHERE id = 1");
      release();
      await expect(open).rejects.toThrow("rolled back");
      await outside;
      expect(await seen).toEqual([]);
      expect(await store.all("SELECT id FROM t ORDER BY id")).toEqual([{ id: 2 }]);
    });

    it("lock() makes a count and the insert it bounds atomic under concurrency", async () => {
      await store.run("DELETE FROM t");
      const cap = 5;
      const results = await Promise.allSettled(
        Array.from({ length: 15 }, (_, i) =>
          store.transaction(async (tx) => {
            await tx.lock("t-cap");
            const n = Number((await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM t"))!.n);
            await tick();
            if (n >= cap) throw new Error("cap");
            await tx.run("INSERT INTO t (id, name) VALUES (?, 'x')", [i + 1]);
          }),
        ),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(cap);
      expect(await count()).toBe(cap);
    });

    it("notify reaches listeners after the commit, and never from a rolled-back transaction", async () => {
      const seen: (string | undefined)[] = [];
      const stop = await store.listen("store-test", (p) => seen.push(p));
      try {
        await expect(
          store.transaction(async (tx) => {
            await tx.notify("store-test", "rolled-back");
            throw new Error("no");
          }),
        ).rejects.toThrow("no");
        await store.transaction(async (tx) => {
          await tx.notify("store-test", "committed");
          await tick();
          expect(seen).toEqual([]);
        });
        for (let i = 0; i < 200 && !seen.includes("committed"); i++)
          await new Promise((r) => setTimeout(r, 10));
        expect(seen).toEqual(["committed"]);
      } finally {
        stop();
      }
    });

    it("a change by another connection is seen by changes()", async () => {
      const changed = await store.changes("store-test-changes");
      await tick();
      changed();
      const other = await handle.connect();
      await other.store.transaction(async (tx) => {
        await tx.run("DELETE FROM t");
        await tx.notify("store-test-changes");
      });
      let seen = false;
      for (let i = 0; i < 200 && !seen; i++) {
        await new Promise((r) => setTimeout(r, 10));
        seen = changed();
      }
      expect(seen).toBe(true);
    });
  });
}

describe("placeholders for PostgreSQL", () => {
  it.each([
    ["SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = $1 AND b = $2"],
    [
      "SELECT '?' AS q, \"we?ird\" FROM t WHERE a = ?",
      "SELECT '?' AS q, \"we?ird\" FROM t WHERE a = $1",
    ],
    [
      "SELECT 'it''s ?' WHERE x = ? -- a comment?\n AND y = ?",
      "SELECT 'it''s ?' WHERE x = $1 -- a comment?\n AND y = $2",
    ],
    ["SELECT 1", "SELECT 1"],
  ])("%s", (given, want) => {
    expect(toPositional(given)).toBe(want);
  });
});
