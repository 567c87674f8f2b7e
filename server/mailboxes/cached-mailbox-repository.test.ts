// The mailbox list cache never answers with a stale list: after writes through the API, after a
// commit by another connection to the same file (another process), and when a write lands while a
// list is being read.
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { CachedMailboxRepository } from "./cached-mailbox-repository.ts";
import type { MailboxRecord, MailboxRepository } from "./mailbox-repository.ts";

let p: TestPlatform;
let t: Tenant;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("cache");
});
afterAll(() => p.stop());

const listed = async () => (await t.api("GET", "/v1/mailboxes")).body.mailboxes as { email: string; usedBytes?: number; membersCount?: number }[];

describe("the cached mailbox list", () => {
  it("follows the API's own writes: create, group members, delete", async () => {
    await listed(); // filled
    const bob = (await t.api("POST", "/v1/mailboxes", { name: "bob", domain: t.domain, password: "correct horse" })).body;
    expect((await listed()).map((m) => m.email)).toContain(`bob@${t.domain}`);
    const group = (await t.api("POST", "/v1/groups", { name: "team", domain: t.domain })).body;
    expect((await listed()).find((m) => m.email === `team@${t.domain}`)?.membersCount).toBe(0);
    expect((await t.api("POST", `/v1/groups/${group.id}/members`, { mailbox: `bob@${t.domain}` })).status).toBe(200);
    expect((await listed()).find((m) => m.email === `team@${t.domain}`)?.membersCount).toBe(1);
    expect((await t.api("DELETE", `/v1/mailboxes/${bob.id}`)).status).toBe(200);
    const after = await listed();
    expect(after.map((m) => m.email)).not.toContain(`bob@${t.domain}`);
    // Deleting bob removed his membership too.
    expect(after.find((m) => m.email === `team@${t.domain}`)?.membersCount).toBe(0);
  });

  it("sees a commit by another connection to the same file", async () => {
    await t.api("POST", "/v1/mailboxes", { name: "carol", domain: t.domain, password: "correct horse" });
    expect((await listed()).find((m) => m.email === `carol@${t.domain}`)?.usedBytes).toBe(0);
    const other = new DatabaseSync(path.join(p.dataDir, "platform.sqlite"));
    try {
      other.prepare("UPDATE mailboxes SET used_bytes = 4096 WHERE email = ?").run(`carol@${t.domain}`);
    } finally {
      other.close();
    }
    expect((await listed()).find((m) => m.email === `carol@${t.domain}`)?.usedBytes).toBe(4096);
  });

  // GET /v1/mailboxes keeps its answer per list object (mailboxes/handlers.ts): that is exact only
  // if the list cannot change in place and a change always gives a new object.
  it("hands out one frozen list until something changes, then a new one", async () => {
    const cache = p.services.mailboxes;
    const first = await cache.list(t.projectId);
    expect(await cache.list(t.projectId)).toBe(first);
    expect(Object.isFrozen(first) && first.every((m) => Object.isFrozen(m))).toBe(true);
    await t.api("POST", "/v1/mailboxes", { name: "dave", domain: t.domain, password: "correct horse" });
    const afterCreate = await cache.list(t.projectId);
    expect(afterCreate).not.toBe(first);
    expect(afterCreate.map((m) => m.email)).toContain(`dave@${t.domain}`);
    const other = new DatabaseSync(path.join(p.dataDir, "platform.sqlite"));
    try {
      other.prepare("UPDATE mailboxes SET used_bytes = 10 WHERE email = ?").run(`dave@${t.domain}`);
    } finally {
      other.close();
    }
    // Seen from the next request on (data_version is read once per turn of the event loop).
    expect((await listed()).find((m) => m.email === `dave@${t.domain}`)?.usedBytes).toBe(10);
    const afterOther = await cache.list(t.projectId);
    expect(afterOther).not.toBe(afterCreate);
    expect(afterOther.find((m) => m.email === `dave@${t.domain}`)?.usedBytes).toBe(10);
  });

  it("does not keep a list read while a write ran", async () => {
    const rows: MailboxRecord[][] = [[], [{ id: "mbx_1" } as MailboxRecord]];
    let reads = 0;
    let releaseFirstRead!: () => void;
    const firstReadHeld = new Promise<void>((resolve) => (releaseFirstRead = resolve));
    const inner = {
      async list() {
        const snapshot = rows[Math.min(reads++, 1)];
        if (reads === 1) await firstReadHeld; // the read took its rows, then a write lands
        return snapshot;
      },
      async create() {
        return undefined;
      },
    } as unknown as MailboxRepository;
    const cache = new CachedMailboxRepository(inner, () => false);
    const slowRead = cache.list("prj_1");
    await cache.create({ projectId: "prj_1" } as never);
    releaseFirstRead();
    expect(await slowRead).toEqual([]); // what that read saw
    expect(await cache.list("prj_1")).toEqual([{ id: "mbx_1" }]); // not kept: read again
    expect(reads).toBe(2);
    expect(await cache.list("prj_1")).toEqual([{ id: "mbx_1" }]);
    expect(reads).toBe(2); // now kept
  });
});
