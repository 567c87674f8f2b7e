// The two rules of sending that decide what a project pays for and who gets mail: suppression
// (who is never mailed, in which stream, for which scope owner) and idempotency (a retried send
// within 24 hours answers the first response and sends nothing twice). Straight against the
// repository on a real database and a manual clock, so the 24-hour boundary is met exactly; the
// HTTP side of both is in send.test.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../db/database.ts";
import { manualClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import type { AcceptOutcome, NewMessage } from "./message-repository.ts";
import { SqliteSentMessageRepository } from "./sqlite-sent-message-repository.ts";
import { isSuppressed, suppress } from "./suppression-rules.ts";

let dir: string;
let db: DatabaseSync;
let p1: string;
let p2: string;
const clock = manualClock();
const DAY = 24 * 3_600_000;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sending-rules-"));
  db = openDatabase(dir);
  const projects = new SqlProjectRepository(storeOnSqlite(db));
  p1 = (await projects.create("rules-1")).id;
  p2 = (await projects.create("rules-2")).id;
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const block = (projectId: string, address: string, kind: "hard" | "marketing", scope: string, reason = "test") =>
  suppress(db, { projectId, address, kind, scope, reason, messageId: `msg_${++seq}`, at: clock.now() });
const rows = (projectId: string, address: string) =>
  db.prepare("SELECT kind, scope, reason FROM suppressions WHERE project_id = ? AND address = ? ORDER BY kind, scope").all(projectId, address);

describe("suppression", () => {
  it("a hard bounce blocks the address in both streams and every scope, for its project only", () => {
    block(p1, "hard@rules.test", "hard", "");
    for (const stream of ["transactional", "marketing"] as const) {
      for (const scope of ["", "shop-a"]) expect(isSuppressed(db, p1, "hard@rules.test", stream, scope)).toBe(true);
    }
    expect(isSuppressed(db, p2, "hard@rules.test", "transactional", "")).toBe(false);
    expect(isSuppressed(db, p1, "other@rules.test", "transactional", "")).toBe(false);
  });

  it("a hard bounce is project-wide: whatever scope it came with, one row with the empty scope", () => {
    block(p1, "scoped-hard@rules.test", "hard", "shop-a");
    block(p1, "scoped-hard@rules.test", "hard", "shop-b");
    expect(rows(p1, "scoped-hard@rules.test")).toEqual([{ kind: "hard", scope: "", reason: "test" }]);
    expect(isSuppressed(db, p1, "scoped-hard@rules.test", "marketing", "shop-c")).toBe(true);
  });

  it("a complaint for the whole project blocks marketing in every scope and never transactional mail", () => {
    block(p1, "complained@rules.test", "marketing", "");
    expect(isSuppressed(db, p1, "complained@rules.test", "marketing", "")).toBe(true);
    expect(isSuppressed(db, p1, "complained@rules.test", "marketing", "shop-a")).toBe(true);
    expect(isSuppressed(db, p1, "complained@rules.test", "transactional", "")).toBe(false);
    expect(isSuppressed(db, p1, "complained@rules.test", "transactional", "shop-a")).toBe(false);
    expect(isSuppressed(db, p2, "complained@rules.test", "marketing", "")).toBe(false);
  });

  it("an unsubscribe from one scope owner blocks only that owner's marketing", () => {
    block(p1, "unsub@rules.test", "marketing", "shop-a");
    expect(isSuppressed(db, p1, "unsub@rules.test", "marketing", "shop-a")).toBe(true);
    expect(isSuppressed(db, p1, "unsub@rules.test", "marketing", "shop-b")).toBe(false);
    // The project's own marketing (empty scope) is another sender than shop-a.
    expect(isSuppressed(db, p1, "unsub@rules.test", "marketing", "")).toBe(false);
    expect(isSuppressed(db, p1, "unsub@rules.test", "transactional", "shop-a")).toBe(false);
    expect(rows(p1, "unsub@rules.test")).toEqual([{ kind: "marketing", scope: "shop-a", reason: "test" }]);
  });

  it("addresses compare without case, however they were written on either side", () => {
    block(p1, "Mixed.Case@Rules.TEST", "hard", "");
    expect(rows(p1, "mixed.case@rules.test")).toHaveLength(1);
    expect(isSuppressed(db, p1, "mixed.case@rules.test", "transactional", "")).toBe(true);
    expect(isSuppressed(db, p1, "MIXED.case@rules.test", "transactional", "")).toBe(true);
  });

  it("a second event for the same block keeps the first (its reason and message)", () => {
    block(p1, "twice@rules.test", "marketing", "shop-a", "complaint");
    block(p1, "twice@rules.test", "marketing", "shop-a", "unsubscribe");
    expect(rows(p1, "twice@rules.test")).toEqual([{ kind: "marketing", scope: "shop-a", reason: "complaint" }]);
  });
});

function message(to: string, over: Partial<NewMessage> = {}): NewMessage {
  const id = `msg_rules_${++seq}`;
  return {
    id, from: "noreply@rules.test", to, cc: [], bcc: [], replyTo: [], subject: "s", text: "t", headers: {}, stream: "transactional", scope: "",
    track: false, unsubscribe: false, rfcMessageId: `${id}@rules.test`, returnPath: `b+${id}@rules.test`, attachments: [], links: [], ...over,
  };
}

describe("accepting a send", async () => {
  const repo = () => new SqliteSentMessageRepository(db, new JobQueue(db, clock), clock);
  const respond = (outcomes: AcceptOutcome[]) => ({ ids: outcomes.map((o) => o.id), statuses: outcomes.map((o) => o.status) });
  const send = (projectId: string, to: string, idempotency?: { key: string; bodyHash: string }, over: Partial<NewMessage> = {}) =>
    repo().accept({ projectId, messages: [message(to, over)], relayName: "relay.rules.test", idempotency, respond });
  const stored = () => (db.prepare("SELECT COUNT(*) AS n FROM sent_messages").get() as { n: number }).n;

  it("sends nothing to a suppressed recipient and records it as suppressed, without a relay", async () => {
    block(p1, "gone@rules.test", "hard", "");
    const r = await send(p1, "gone@rules.test");
    expect(r).toMatchObject({ kind: "accepted", response: { statuses: ["suppressed"] } });
    const id = (r as { response: { ids: string[] } }).response.ids[0];
    expect(db.prepare("SELECT status, relay, sent_at FROM sent_messages WHERE id = ?").get(id)).toEqual({ status: "suppressed", relay: null, sent_at: null });
    expect(await send(p1, "fine@rules.test")).toMatchObject({ response: { statuses: ["sent"] } });
  });

  it("drops a suppressed cc from the relay job but still sends to the others", async () => {
    block(p1, "cc-gone@rules.test", "hard", "");
    const r = await send(p1, "main@rules.test", undefined, { cc: ["cc-gone@rules.test", "cc-ok@rules.test"] });
    expect(r).toMatchObject({ response: { statuses: ["sent"] } });
    const jobs = db.prepare("SELECT payload FROM jobs ORDER BY id DESC LIMIT 1").get() as { payload: string };
    expect(jobs.payload).toContain("cc-ok@rules.test");
    expect(jobs.payload).not.toContain("cc-gone@rules.test");
  });

  it("within 24 hours the same key and body answer the first response and store nothing new", async () => {
    const key = { key: "k-replay", bodyHash: "h1" };
    const first = await send(p1, "idem@rules.test", key);
    expect(first.kind).toBe("accepted");
    const before = stored();
    clock.advance(DAY - 1);
    const again = await send(p1, "idem@rules.test", key);
    expect(again).toEqual({ kind: "replay", response: (first as { response: unknown }).response });
    expect(stored()).toBe(before);
  });

  it("within 24 hours the same key with another body is a conflict that stores nothing", async () => {
    await send(p1, "idem2@rules.test", { key: "k-conflict", bodyHash: "h1" });
    const before = stored();
    expect(await send(p1, "idem2@rules.test", { key: "k-conflict", bodyHash: "h2" })).toEqual({ kind: "conflict" });
    expect(stored()).toBe(before);
  });

  it("exactly 24 hours later the key is free again: a new send, and its response is the one replayed next", async () => {
    const first = await send(p1, "idem3@rules.test", { key: "k-expire", bodyHash: "h1" }) as { response: { ids: string[] } };
    clock.advance(DAY);
    const second = await send(p1, "idem3@rules.test", { key: "k-expire", bodyHash: "h2" }) as { kind: string; response: { ids: string[] } };
    expect(second.kind).toBe("accepted");
    expect(second.response.ids).not.toEqual(first.response.ids);
    expect(await send(p1, "idem3@rules.test", { key: "k-expire", bodyHash: "h2" })).toEqual({ kind: "replay", response: second.response });
    expect(await send(p1, "idem3@rules.test", { key: "k-expire", bodyHash: "h1" })).toEqual({ kind: "conflict" });
  });

  it("keys belong to one project: another project's same key and body is a send of its own", async () => {
    const a = await send(p1, "idem4@rules.test", { key: "k-shared", bodyHash: "h1" }) as { response: { ids: string[] } };
    const b = await send(p2, "idem4@rules.test", { key: "k-shared", bodyHash: "h1" }) as { kind: string; response: { ids: string[] } };
    expect(b.kind).toBe("accepted");
    expect(b.response.ids).not.toEqual(a.response.ids);
  });

  it("without a key every call is a new send", async () => {
    const a = await send(p1, "nokey@rules.test") as { response: { ids: string[] } };
    const b = await send(p1, "nokey@rules.test") as { kind: string; response: { ids: string[] } };
    expect(b.kind).toBe("accepted");
    expect(b.response.ids).not.toEqual(a.response.ids);
  });
});
