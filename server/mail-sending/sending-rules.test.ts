// The two rules of sending that decide what a project pays for and who gets mail: suppression
// (who is never mailed, in which stream, for which scope owner) and idempotency (a retried send
// within 24 hours answers the first response and sends nothing twice). Straight against the
// repository on a real database of each store and a manual clock, so the 24-hour boundary is met
// exactly; the HTTP side of both is in send.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "../db/sql.ts";
import { manualClock } from "../jobs/clock.ts";
import { backends, newProject, useStore } from "../test/backends.ts";
import type { AcceptOutcome, NewMessage } from "./message-repository.ts";
import { SqlSentMessageRepository } from "./sent-message-repository.ts";
import { mailOutboxOf } from "./test/mail-outbox-of.ts";
import { isSuppressed, suppress, type SuppressionReason } from "./suppression-rules.ts";

const DAY = 24 * 3_600_000;

for (const backend of backends) describe(`sending rules on ${backend}`, () => {
  const store = useStore(backend);
  let db: Sql;
  let p1: string;
  let p2: string;
  const clock = manualClock();

  beforeAll(async () => {
    db = store.main.store;
    p1 = await newProject(store.main, "rules-1");
    p2 = await newProject(store.main, "rules-2");
  });

  let seq = 0;
  const block = (projectId: string, address: string, kind: "hard" | "marketing", scope: string, reason: SuppressionReason = "manual") =>
    suppress(db, { projectId, address, kind, scope, reason, messageId: `msg_${++seq}`, at: clock.now() });
  const rows = (projectId: string, address: string) =>
    db.all("SELECT kind, scope, reason FROM suppressions WHERE project_id = ? AND address = ? ORDER BY kind, scope", [projectId, address]);

  describe("suppression", () => {
    it("a hard bounce blocks the address in both streams and every scope, for its project only", async () => {
      await block(p1, "hard@rules.test", "hard", "");
      for (const stream of ["transactional", "marketing"] as const) {
        for (const scope of ["", "shop-a"]) expect(await isSuppressed(db, p1, "hard@rules.test", stream, scope)).toBe(true);
      }
      expect(await isSuppressed(db, p2, "hard@rules.test", "transactional", "")).toBe(false);
      expect(await isSuppressed(db, p1, "other@rules.test", "transactional", "")).toBe(false);
    });

    it("a hard bounce is project-wide: whatever scope it came with, one row with the empty scope", async () => {
      await block(p1, "scoped-hard@rules.test", "hard", "shop-a");
      await block(p1, "scoped-hard@rules.test", "hard", "shop-b");
      expect(await rows(p1, "scoped-hard@rules.test")).toEqual([{ kind: "hard", scope: "", reason: "manual" }]);
      expect(await isSuppressed(db, p1, "scoped-hard@rules.test", "marketing", "shop-c")).toBe(true);
    });

    it("a complaint for the whole project blocks marketing in every scope and never transactional mail", async () => {
      await block(p1, "complained@rules.test", "marketing", "");
      expect(await isSuppressed(db, p1, "complained@rules.test", "marketing", "")).toBe(true);
      expect(await isSuppressed(db, p1, "complained@rules.test", "marketing", "shop-a")).toBe(true);
      expect(await isSuppressed(db, p1, "complained@rules.test", "transactional", "")).toBe(false);
      expect(await isSuppressed(db, p1, "complained@rules.test", "transactional", "shop-a")).toBe(false);
      expect(await isSuppressed(db, p2, "complained@rules.test", "marketing", "")).toBe(false);
    });

    it("an unsubscribe from one scope owner blocks only that owner's marketing", async () => {
      await block(p1, "unsub@rules.test", "marketing", "shop-a");
      expect(await isSuppressed(db, p1, "unsub@rules.test", "marketing", "shop-a")).toBe(true);
      expect(await isSuppressed(db, p1, "unsub@rules.test", "marketing", "shop-b")).toBe(false);
      // The project's own marketing (empty scope) is another sender than shop-a.
      expect(await isSuppressed(db, p1, "unsub@rules.test", "marketing", "")).toBe(false);
      expect(await isSuppressed(db, p1, "unsub@rules.test", "transactional", "shop-a")).toBe(false);
      expect(await rows(p1, "unsub@rules.test")).toEqual([{ kind: "marketing", scope: "shop-a", reason: "manual" }]);
    });

    it("addresses compare without case, however they were written on either side", async () => {
      await block(p1, "Mixed.Case@Rules.TEST", "hard", "");
      expect(await rows(p1, "mixed.case@rules.test")).toHaveLength(1);
      expect(await isSuppressed(db, p1, "mixed.case@rules.test", "transactional", "")).toBe(true);
      expect(await isSuppressed(db, p1, "MIXED.case@rules.test", "transactional", "")).toBe(true);
    });

    it("a second event for the same block keeps the first (its reason and message)", async () => {
      await block(p1, "twice@rules.test", "marketing", "shop-a", "complained");
      await block(p1, "twice@rules.test", "marketing", "shop-a", "unsubscribed");
      expect(await rows(p1, "twice@rules.test")).toEqual([{ kind: "marketing", scope: "shop-a", reason: "complained" }]);
    });
  });

  function message(to: string, over: Partial<NewMessage> = {}): NewMessage {
    const id = `msg_rules_${++seq}`;
    return {
      id, from: "noreply@rules.test", to, cc: [], bcc: [], replyTo: [], subject: "s", text: "t", headers: {}, stream: "transactional", scope: "",
      track: false, unsubscribe: false, rfcMessageId: `${id}@rules.test`, returnPath: `b+${id}@rules.test`, attachments: [], links: [], ...over,
    };
  }

  describe("accepting a send", () => {
    const repo = () => new SqlSentMessageRepository(store.main.store, mailOutboxOf(store.main, clock), clock);
    const respond = (outcomes: AcceptOutcome[]) => ({ ids: outcomes.map((o) => o.id), statuses: outcomes.map((o) => o.status) });
    const send = (projectId: string, to: string, idempotency?: { key: string; bodyHash: string }, over: Partial<NewMessage> = {}) =>
      repo().accept({ projectId, messages: [message(to, over)], relayName: "relay.rules.test", idempotency, respond });
    const stored = async () => (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM sent_messages"))!.n;

    it("sends nothing to a suppressed recipient and records it as suppressed, without a relay", async () => {
      await block(p1, "gone@rules.test", "hard", "");
      const r = await send(p1, "gone@rules.test");
      expect(r).toMatchObject({ kind: "accepted", response: { statuses: ["suppressed"] } });
      const id = (r as { response: { ids: string[] } }).response.ids[0];
      expect(await db.get("SELECT status, relay, sent_at FROM sent_messages WHERE id = ?", [id])).toEqual({ status: "suppressed", relay: null, sent_at: null });
      expect(await send(p1, "fine@rules.test")).toMatchObject({ response: { statuses: ["sent"] } });
    });

    it("drops a suppressed cc from the relay job but still sends to the others", async () => {
      await block(p1, "cc-gone@rules.test", "hard", "");
      const r = await send(p1, "main@rules.test", undefined, { cc: ["cc-gone@rules.test", "cc-ok@rules.test"] });
      expect(r).toMatchObject({ response: { statuses: ["sent"] } });
      const jobs = (await db.get<{ payload: string }>("SELECT payload FROM jobs ORDER BY id DESC LIMIT 1"))!;
      expect(jobs.payload).toContain("cc-ok@rules.test");
      expect(jobs.payload).not.toContain("cc-gone@rules.test");
    });

    it("within 24 hours the same key and body answer the first response and store nothing new", async () => {
      const key = { key: "k-replay", bodyHash: "h1" };
      const first = await send(p1, "idem@rules.test", key);
      expect(first.kind).toBe("accepted");
      const before = await stored();
      clock.advance(DAY - 1);
      const again = await send(p1, "idem@rules.test", key);
      expect(again).toEqual({ kind: "replay", response: (first as { response: unknown }).response });
      expect(await stored()).toBe(before);
    });

    it("within 24 hours the same key with another body is a conflict that stores nothing", async () => {
      await send(p1, "idem2@rules.test", { key: "k-conflict", bodyHash: "h1" });
      const before = await stored();
      expect(await send(p1, "idem2@rules.test", { key: "k-conflict", bodyHash: "h2" })).toEqual({ kind: "conflict" });
      expect(await stored()).toBe(before);
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
});
