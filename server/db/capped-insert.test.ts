// The cap is a property of each repository's insert, not of the handler that calls it: a create
// at the cap throws CapReachedError and writes nothing, whoever calls it (a handler, the console,
// another process on the same file). The HTTP race is in server/caps.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlDnsRecordRepository } from "../dns/zone-repository.ts";
import { systemClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { SqlMailboxRepository } from "../mailboxes/mailbox-repository.ts";
import { SqlMailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { backendOn } from "./backend.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { SqlWebhookRepository } from "../webhooks/webhook-repository.ts";
import { CapReachedError } from "./capped-insert.ts";
import { openDatabase } from "./database.ts";

let dir: string;
let db: DatabaseSync;
let projectId: string;
let domainId: string;
const box = new SecretBox(Buffer.alloc(32, 7));
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "caps-"));
  db = openDatabase(dir);
  projectId = (await new SqlProjectRepository(storeOnSqlite(db)).create("caps")).id;
  const domains = new SqlMailDomainRepository(backendOn(storeOnSqlite(db), systemClock), box);
  const domain = await domains.create({
    projectId, name: "caps.test", dkimSelector: "platform", dkimPrivateKey: "k", dkimPublicKey: "p", verificationToken: "t",
  });
  domainId = domain!.id;
  // Mailboxes and groups go only on a verified claim, checked in their insert's transaction (O1, O8).
  expect(await domains.takeOwnership(domainId, "hosting", new Date().toISOString())).toBe(true);
  await new SqlDnsRecordRepository(storeOnSqlite(db), () => true).createZone({ name: "caps.test", projectId });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = (sql: string, ...args: string[]) => (db.prepare(sql).get(...args) as { n: number }).n;

// [name, insert number i under cap, rows counted]
const cases: [string, (i: number, cap: number) => Promise<unknown>, () => number][] = [
  ["mailboxes", (i, cap) => new SqlMailboxRepository(storeOnSqlite(db)).create({ projectId, domainId, kind: "mailbox", email: `m${i}@caps.test`, passwordHash: "x", description: null }, cap),
    () => count("SELECT COUNT(*) AS n FROM mailboxes WHERE kind = 'mailbox'")],
  ["groups", (i, cap) => new SqlMailboxRepository(storeOnSqlite(db)).create({ projectId, domainId, kind: "group", email: `g${i}@caps.test`, passwordHash: null, description: null }, cap),
    () => count("SELECT COUNT(*) AS n FROM mailboxes WHERE kind = 'group'")],
  ["members", async (i, cap) => {
    const repo = new SqlMailboxRepository(storeOnSqlite(db));
    const group = (await repo.findByEmail(projectId, "g0@caps.test", "group"))!;
    const mailbox = (await repo.create({ projectId, domainId, kind: "mailbox", email: `member${i}@caps.test`, passwordHash: "x", description: null }))!;
    return repo.addMember(group.id, mailbox.id, cap);
  }, () => count("SELECT COUNT(*) AS n FROM group_members")],
  ["webhooks", (i, cap) => new SqlWebhookRepository(storeOnSqlite(db), new JobQueue(storeOnSqlite(db), systemClock)).create({ projectId, url: `https://h.example.org/${i}`, events: [], secretSealed: "s" }, cap),
    () => count("SELECT COUNT(*) AS n FROM webhooks")],
  ["records", (i, cap) => new SqlDnsRecordRepository(storeOnSqlite(db), () => true).insertRecord("caps.test", { name: `n${i}`, type: "TXT", data: `v${i}`, priority: null, ttl: 3600 }, cap),
    () => count("SELECT COUNT(*) AS n FROM dns_records")],
  ["mail domains", (i, cap) => new SqlMailDomainRepository(backendOn(storeOnSqlite(db), systemClock), box).create({ projectId, name: `d${i}.test`, dkimSelector: "platform", dkimPrivateKey: "k", dkimPublicKey: "p", verificationToken: "t" }, cap),
    () => count("SELECT COUNT(*) AS n FROM mail_domains")],
];

describe("a capped insert at its cap writes nothing", () => {
  it.each(cases)("%s", async (_name, insert, rows) => {
    const cap = rows() + 3;
    for (let i = 0; i < 3; i++) await insert(i, cap);
    expect(rows()).toBe(cap);
    await expect(insert(99, cap)).rejects.toBeInstanceOf(CapReachedError);
    expect(rows()).toBe(cap);
    expect(db.isTransaction).toBe(false);
  });
});
