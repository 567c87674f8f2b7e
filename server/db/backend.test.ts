// The Backend port on both stores: a transaction commits the job and the event written in it, or
// none of them; inside a caller's transaction it is a savepoint of that one.
import { describe, expect, it } from "vitest";
import { systemClock } from "../jobs/clock.ts";
import { backends, newProject, sql, useStore, type Connection } from "../test/backends.ts";
import { backendOn } from "./backend.ts";

const make = (c: Connection) => backendOn(c.store, systemClock);

for (const backend of backends) {
  describe(`Backend (${backend})`, () => {
    const store = useStore(backend);

    it("commits the jobs and events written in one transaction together", async () => {
      const b = make(store.main);
      const project = await newProject(store.main);
      const before = await b.countJobs("test.kind");
      const event = await b.transact(async (tx) => {
        await b.enqueue(tx, "test.kind", { n: 1 });
        return b.emit(tx, project, "mail.dlp", { n: 1 });
      });
      expect(await b.countJobs("test.kind")).toBe(before + 1);
      expect(await sql(store.main, "SELECT id FROM events WHERE id = ?", [event.id])).toHaveLength(1);
    });

    it("rolls back everything written when the function throws, also after awaiting other work", async () => {
      const b = make(store.main);
      const project = await newProject(store.main);
      const before = await b.countJobs("test.rollback");
      let id = "";
      await expect(b.transact(async (tx) => {
        await b.enqueue(tx, "test.rollback", {});
        id = (await b.emit(tx, project, "mail.dlp", {})).id;
        await new Promise((r) => setTimeout(r, 5));
        throw new Error("caller failed");
      })).rejects.toThrow("caller failed");
      expect(await b.countJobs("test.rollback")).toBe(before);
      expect(await sql(store.main, "SELECT id FROM events WHERE id = ?", [id])).toHaveLength(0);
    });

    it("writes outside a transaction through the store itself", async () => {
      const b = make(store.main);
      const before = await b.countJobs("test.direct");
      await b.enqueue(b.store, "test.direct", {});
      await b.enqueue(b.direct, "test.direct", {});
      expect(await b.countJobs("test.direct")).toBe(before + 2);
    });

    it("nests inside a caller's transaction as a savepoint", async () => {
      const b = make(store.main);
      const before = await b.countJobs("test.nested");
      const [kept, undone] = await b.store.transaction(async (outer) => {
        await b.enqueue(outer, "test.nested", {});
        return Promise.allSettled([
          b.transact((tx) => b.enqueue(tx, "test.nested", {})),
          b.transact(async (tx) => {
            await b.enqueue(tx, "test.nested", {});
            throw new Error("inner");
          }),
        ]);
      });
      expect(kept.status).toBe("fulfilled");
      expect(undone).toMatchObject({ status: "rejected", reason: { message: "inner" } });
      // The outer job and the first savepoint's; the failed savepoint's alone was undone.
      expect(await b.countJobs("test.nested")).toBe(before + 2);
    });
  });
}
