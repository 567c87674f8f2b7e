// The Backend port on both stores: a transaction commits the job and the event written in it, or
// none of them; SQLite refuses an asynchronous transaction and nests as a savepoint.
import { describe, expect, it } from "vitest";
import { EventOutbox } from "../events/event-outbox.ts";
import { PgEventOutbox } from "../events/pg-event-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { backends, byBackend, newProject, sql, useStore } from "../test/backends.ts";
import { postgresBackend, sqliteBackend, type Backend } from "./backend.ts";
import { transaction } from "./database.ts";

const make = byBackend<Backend>({
  sqlite: (db) => {
    const jobs = new JobQueue(db, systemClock);
    return sqliteBackend(db, jobs, new EventOutbox(db, jobs, systemClock));
  },
  postgres: (pg) => {
    const jobs = new PgJobQueue(pg, systemClock);
    return postgresBackend(pg, jobs, new PgEventOutbox(jobs, systemClock));
  },
});

for (const backend of backends) {
  describe(`Backend (${backend})`, () => {
    const store = useStore(backend);

    it("commits the jobs and events written in one transaction together", async () => {
      const b = make(store.main);
      const project = await newProject(store.main);
      const before = await b.countJobs("test.kind");
      // Synchronous on SQLite, awaited on PostgreSQL: the shape every Tx-taking write has.
      const event = await b.transact((tx) => {
        const job = b.enqueue(tx, "test.kind", { n: 1 });
        const emitted = b.emit(tx, project, "mail.dlp", { n: 1 });
        return emitted instanceof Promise ? Promise.all([job, emitted]).then(([, e]) => e) : emitted;
      });
      expect(await b.countJobs("test.kind")).toBe(before + 1);
      const rows = await sql<{ id: string }>(store.main, "SELECT id FROM events WHERE id = ?", [event.id]);
      expect(rows).toHaveLength(1);
    });

    it("rolls back everything written when the function throws", async () => {
      const b = make(store.main);
      const project = await newProject(store.main);
      const before = await b.countJobs("test.rollback");
      let id = "";
      await expect(b.transact((tx) => {
        const write = b.enqueue(tx, "test.rollback", {});
        const emitted = b.emit(tx, project, "mail.dlp", {});
        const fail = (e: { id: string }) => {
          id = e.id;
          throw new Error("caller failed");
        };
        if (emitted instanceof Promise) return Promise.all([write, emitted]).then(([, e]) => fail(e));
        return fail(emitted);
      })).rejects.toThrow("caller failed");
      expect(await b.countJobs("test.rollback")).toBe(before);
      expect(await sql(store.main, "SELECT id FROM events WHERE id = ?", [id])).toHaveLength(0);
    });

    it("writes outside a transaction through `direct`", async () => {
      const b = make(store.main);
      const before = await b.countJobs("test.direct");
      await b.enqueue(b.direct, "test.direct", {});
      expect(await b.countJobs("test.direct")).toBe(before + 1);
    });

    if (backend === "sqlite") {
      it("refuses a transaction function that answers a promise, and keeps nothing of it", async () => {
        const b = make(store.main);
        const before = await b.countJobs("test.async");
        await expect(b.transact(async (tx) => b.enqueue(tx, "test.async", {}))).rejects.toThrow("must be synchronous");
        expect(await b.countJobs("test.async")).toBe(before);
      });

      it("nests inside a caller's transaction as a savepoint", async () => {
        const b = make(store.main);
        if (store.main.backend !== "sqlite") throw new Error("unreachable");
        const db = store.main.db;
        const before = await b.countJobs("test.nested");
        const inner: Promise<unknown>[] = [];
        transaction(db, () => {
          b.enqueue(b.direct, "test.nested", {});
          inner.push(b.transact((tx) => b.enqueue(tx, "test.nested", {})));
          inner.push(b.transact((tx) => {
            b.enqueue(tx, "test.nested", {});
            throw new Error("inner");
          }));
        });
        const [kept, undone] = await Promise.allSettled(inner);
        expect(kept.status).toBe("fulfilled");
        expect(undone).toMatchObject({ status: "rejected", reason: { message: "inner" } });
        // The outer job and the first savepoint's; the failed savepoint's alone was undone.
        expect(await b.countJobs("test.nested")).toBe(before + 2);
      });
    } else {
      it("refuses a transaction of the other backend", async () => {
        const b = make(store.main);
        expect(() => b.enqueue({ kind: "sqlite", db: undefined as never }, "x", {})).toThrow("another backend");
      });
    }
  });
}
