// The behaviour of outgoing mail's storage on either backend (server/test/backends.ts): the send
// side (SentMessageRepository) and what happens after (DeliveryOutcomes, MessageFeedback), seen
// through one asynchronous face; each write on its own transaction, as a handler or a job's
// write makes it. Jobs and events go to the backend's own queue and outbox.
import { beforeAll, describe, expect, it } from "vitest";
import { manualClock, type ManualClock } from "../jobs/clock.ts";
import { newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type {
  AcceptOutcome, AcceptResult, CancelResult, DispatchResult, FunnelCounts, MessageDetail, MessageStatus, MessageSummary, NewMessage, StoredMessage, TrackingInfo,
} from "./message-repository.ts";
import { DSN_WINDOW_AFTER_DELIVERY_MS } from "./message-repository.ts";
import { DISPATCH_JOB, RELAY_JOB } from "./relay-jobs.ts";

export interface FaceAcceptRequest {
  projectId: string;
  messages: NewMessage[];
  relayName: string;
  idempotency?: { key: string; bodyHash: string };
  alsoWrite?: (outcomes: AcceptOutcome[]) => void;
  respond: (outcomes: AcceptOutcome[]) => unknown;
}

export interface MailStorage {
  accept(request: FaceAcceptRequest): Promise<AcceptResult>;
  dispatchScheduled(id: string, relayName: string): Promise<DispatchResult>;
  cancel(projectId: string, id: string): Promise<CancelResult>;
  list(projectId: string, filter: { limit: number; offset: number; status?: MessageStatus; campaign?: string }): Promise<MessageSummary[]>;
  detail(projectId: string, id: string): Promise<MessageDetail | undefined>;
  funnel(projectId: string, since: number, campaign?: string): Promise<FunnelCounts>;
  getForRelay(id: string): Promise<StoredMessage | undefined>;
  markDelivered(id: string, reply: string): Promise<boolean>;
  markHandedOver(id: string, relayMessageId: string): Promise<boolean>;
  markDelayed(id: string, reason: string): Promise<boolean>;
  markFailed(id: string, reason: string): Promise<boolean>;
  markBounced(id: string, bounce: { bounceType: "hard" | "soft"; reason: string }): Promise<boolean>;
  markComplained(id: string): Promise<boolean>;
  recordUnsubscribe(id: string): Promise<boolean>;
  recordOpen(id: string): Promise<boolean>;
  recordClick(id: string, idx: number): Promise<string | undefined>;
  getTrackingInfo(id: string): Promise<TrackingInfo | undefined>;
  /** Jobs of a kind in the backend's queue, with their payloads. */
  jobs(kind: string): Promise<unknown[]>;
  /** Event types the project's outbox recorded, oldest first. */
  events(projectId: string): Promise<string[]>;
  /** The `data` of the project's events of one type, oldest first. */
  eventData(projectId: string, type: string): Promise<unknown[]>;
}

let n = 0;
export function message(over: Partial<NewMessage> = {}): NewMessage {
  const id = `msg_${Date.now().toString(36)}${(++n).toString(36).padStart(4, "0")}`;
  return {
    id, from: "news@sender.example", to: "bob@example.org", cc: [], bcc: [], replyTo: [], subject: "Hello", text: "Hi", headers: {},
    stream: "transactional", scope: "", track: false, unsubscribe: false, rfcMessageId: `${id}@sender.example`, returnPath: `b+${id}@sender.example`,
    attachments: [], links: [], ...over,
  };
}

const respond = (outcomes: AcceptOutcome[]) => ({ messages: outcomes });

export function describeSentMessageStorage(backend: BackendName, make: (c: Connection, clock: ManualClock) => MailStorage): void {
  describe(`outgoing mail storage on ${backend}`, () => {
    const store = useStore(backend);
    const clock = manualClock();
    let s: MailStorage;
    beforeAll(() => {
      s = make(store.main, clock);
    });
    const send = async (projectId: string, m: NewMessage, idempotency?: FaceAcceptRequest["idempotency"]) => {
      const r = await s.accept({ projectId, messages: [m], relayName: "relay.test", idempotency, respond });
      return r.kind === "accepted" ? (r.response as { messages: AcceptOutcome[] }).messages[0] : undefined;
    };
    const relayJobsOf = async (id: string) => ((await s.jobs(RELAY_JOB)) as { messageId: string; rcpts: string[]; primary: boolean }[]).filter((j) => j.messageId === id);

    it("accepts a message with a relay job per recipient domain, and gives the relay everything, bytes exact", async () => {
      const p = await newProject(store.main);
      const bytes = Buffer.from([0, 1, 2, 255, 254, 0x0d, 0x0a, 0]);
      const m = message({
        cc: ["carol@example.org", "dave@other.example"], bcc: ["BOB@example.org", "erin@other.example"], replyTo: ["r@sender.example"],
        html: "<p>Hi</p>", headers: { "X-Tag": "1" }, category: "welcome", campaign: "spring", stream: "marketing", scope: "shop-1",
        track: true, unsubscribe: true, attachments: [{ filename: "a.bin", contentType: "application/octet-stream", content: bytes }, { filename: "b.txt", content: Buffer.from("text") }],
        links: ["https://example.org/a", "https://example.org/b"],
      });
      const out = await send(p, m);
      expect(out).toEqual({ id: m.id, to: m.to, status: "sent", relay: "relay.test", relayMessageId: expect.stringMatching(/^\d+$/) });
      const jobs = await relayJobsOf(m.id);
      expect(jobs).toEqual([
        { messageId: m.id, rcpts: ["bob@example.org"], primary: true },
        { messageId: m.id, rcpts: ["carol@example.org"], primary: false },
        { messageId: m.id, rcpts: ["dave@other.example", "erin@other.example"], primary: false },
      ]);
      const stored = (await s.getForRelay(m.id))!;
      expect(stored).toMatchObject({
        id: m.id, projectId: p, status: "sent", from: m.from, to: m.to, cc: m.cc, bcc: m.bcc, replyTo: m.replyTo, subject: "Hello", text: "Hi", html: "<p>Hi</p>",
        headers: { "X-Tag": "1" }, category: "welcome", campaign: "spring", stream: "marketing", scope: "shop-1", track: true, unsubscribe: true,
        rfcMessageId: m.rfcMessageId, returnPath: m.returnPath, sendAt: null, relay: "relay.test", relayMessageId: out!.relayMessageId, opens: 0, clicks: 0,
        createdAt: clock.now(), lastError: null,
      });
      expect(stored.attachments).toEqual([{ filename: "a.bin", contentType: "application/octet-stream", content: bytes }, { filename: "b.txt", contentType: undefined, content: Buffer.from("text") }]);
      expect(Buffer.isBuffer(stored.attachments[0].content)).toBe(true);
      expect(await s.detail(p, m.id)).toEqual({
        message: { id: m.id, status: "sent", relay: "relay.test", relayMessageId: out!.relayMessageId, toAddr: m.to, opens: 0, clicks: 0 },
        events: [{ event: "sent", at: new Date(clock.now()).toISOString() }],
        links: [{ idx: 0, url: "https://example.org/a", clicks: 0 }, { idx: 1, url: "https://example.org/b", clicks: 0 }],
      });
      expect(await s.detail(await newProject(store.main), m.id)).toBeUndefined();
      expect(await s.getForRelay("msg_missing")).toBeUndefined();
    });

    it("an idempotency key replays the first response for 24 hours, refuses another body, and is per project", async () => {
      const p = await newProject(store.main);
      const idem = { key: "k1", bodyHash: "h1" };
      const first = await s.accept({ projectId: p, messages: [message()], relayName: "relay.test", idempotency: idem, respond });
      expect(first.kind).toBe("accepted");
      const again = await s.accept({ projectId: p, messages: [message()], relayName: "relay.test", idempotency: idem, respond });
      expect(again).toEqual({ kind: "replay", response: (first as { response: unknown }).response });
      expect(await s.accept({ projectId: p, messages: [message()], relayName: "relay.test", idempotency: { key: "k1", bodyHash: "other" }, respond })).toEqual({ kind: "conflict" });
      expect((await s.accept({ projectId: await newProject(store.main), messages: [message()], relayName: "relay.test", idempotency: idem, respond })).kind).toBe("accepted");
      expect(await s.list(p, { limit: 10, offset: 0 })).toHaveLength(1);
      clock.advance(24 * 3_600_000 + 1);
      expect((await s.accept({ projectId: p, messages: [message()], relayName: "relay.test", idempotency: idem, respond })).kind).toBe("accepted");
      expect(await s.list(p, { limit: 10, offset: 0 })).toHaveLength(2);
    });

    it("a further write that fails takes the whole accept back: no message, no job, no key", async () => {
      const p = await newProject(store.main);
      const m = message();
      const seen: string[] = [];
      await expect(
        s.accept({ projectId: p, messages: [m], relayName: "relay.test", idempotency: { key: "k", bodyHash: "h" }, respond, alsoWrite: (o) => { seen.push(o[0].id); throw new Error("log full"); } }),
      ).rejects.toThrow("log full");
      expect(seen).toEqual([m.id]);
      expect(await s.getForRelay(m.id)).toBeUndefined();
      expect(await relayJobsOf(m.id)).toEqual([]);
      expect((await s.accept({ projectId: p, messages: [message()], relayName: "relay.test", idempotency: { key: "k", bodyHash: "other" }, respond })).kind).toBe("accepted");
    });

    it("one key sent at once on two connections is accepted once; the others replay it", async () => {
      const p = await newProject(store.main);
      const other = make(await store.connect(), clock);
      const idem = { key: "race", bodyHash: "same" };
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : s).accept({ projectId: p, messages: [message()], relayName: "relay.test", idempotency: idem, respond })));
      expect(results.filter((r) => r.kind === "accepted")).toHaveLength(1);
      const accepted = results.find((r) => r.kind === "accepted") as { response: unknown };
      for (const r of results) if (r.kind !== "accepted") expect(r).toEqual({ kind: "replay", response: accepted.response });
      expect(await s.list(p, { limit: 20, offset: 0 })).toHaveLength(1);
    });

    it("a delivered message takes a bounce only within the DSN window after its delivery (T7); nothing changes after it", async () => {
      const p = await newProject(store.main);
      const late = (await send(p, message({ to: "late@example.org" })))!;
      const edge = (await send(p, message({ to: "edge@example.org" })))!;
      const inFlight = (await send(p, message({ to: "queued@example.org" })))!;
      expect(await s.markDelivered(late.id, "250 ok")).toBe(true);
      expect(await s.markDelivered(edge.id, "250 ok")).toBe(true);
      clock.advance(DSN_WINDOW_AFTER_DELIVERY_MS);
      expect(await s.markBounced(edge.id, { bounceType: "hard", reason: "550 gone after all" })).toBe(true);
      clock.advance(1);
      expect(await s.markBounced(late.id, { bounceType: "hard", reason: "550 forged" })).toBe(false);
      expect(await s.markBounced(late.id, { bounceType: "soft", reason: "452 forged" })).toBe(false);
      expect(await s.getForRelay(late.id)).toMatchObject({ status: "delivered", lastError: "250 ok" });
      expect((await send(p, message({ to: "late@example.org" })))!.status).toBe("sent");
      expect((await send(p, message({ to: "edge@example.org" })))!.status).toBe("suppressed");
      // Still in flight (ours or a smarthost's): no window applies.
      expect(await s.markBounced(inFlight.id, { bounceType: "soft", reason: "452 full" })).toBe(true);
      expect(await s.events(p)).toEqual(["mail.delivered", "mail.delivered", "mail.bounced", "mail.bounced"]);
    });

    it("a hard bounce suppresses the address in both streams; a marketing complaint only marketing mail of its scope", async () => {
      const p = await newProject(store.main);
      const hard = await send(p, message({ to: "gone@example.org" }));
      expect(await s.markBounced(hard!.id, { bounceType: "hard", reason: "550 no such user" })).toBe(true);
      expect((await send(p, message({ to: "GONE@example.org" })))!.status).toBe("suppressed");
      expect((await send(p, message({ to: "gone@example.org", stream: "marketing", scope: "x" })))!.status).toBe("suppressed");
      const m = await send(p, message({ to: "tired@example.org", stream: "marketing", scope: "shop-1" }));
      expect(await s.markComplained(m!.id)).toBe(true);
      expect((await send(p, message({ to: "tired@example.org", stream: "marketing", scope: "shop-1" })))!.status).toBe("suppressed");
      expect((await send(p, message({ to: "tired@example.org", stream: "marketing", scope: "shop-2" })))!.status).toBe("sent");
      expect((await send(p, message({ to: "tired@example.org" })))!.status).toBe("sent");
      // Suppressed cc and bcc recipients are left out of the envelope.
      const withCc = await send(p, message({ cc: ["gone@example.org", "kept@example.net"] }));
      expect((await relayJobsOf(withCc!.id)).flatMap((j) => j.rcpts)).toEqual(["bob@example.org", "kept@example.net"]);
      const suppressed = await send(p, message({ to: "gone@example.org" }));
      expect(await relayJobsOf(suppressed!.id)).toEqual([]);
      expect(await s.detail(p, suppressed!.id)).toMatchObject({ message: { status: "suppressed", relay: null, relayMessageId: null }, events: [] });
      expect(await s.events(p)).toEqual(["mail.bounced", "mail.complained"]);
    });

    it("a scheduled message waits for its dispatch job; cancel wins only while it is scheduled", async () => {
      const p = await newProject(store.main);
      const sendAt = clock.now() + 3_600_000;
      const a = await send(p, message({ sendAt }));
      expect(a).toEqual({ id: a!.id, to: "bob@example.org", status: "scheduled", relay: null, relayMessageId: null });
      expect(await s.jobs(DISPATCH_JOB)).toContainEqual({ messageId: a!.id });
      expect(await s.cancel(await newProject(store.main), a!.id)).toEqual({ kind: "not_found" });
      expect(await s.cancel(p, a!.id)).toEqual({ kind: "canceled" });
      expect(await s.jobs(DISPATCH_JOB)).not.toContainEqual({ messageId: a!.id });
      expect(await s.cancel(p, a!.id)).toEqual({ kind: "not_cancelable", status: "canceled" });
      expect(await s.dispatchScheduled(a!.id, "relay.test")).toEqual({ kind: "gone", status: "canceled" });
      expect(await s.dispatchScheduled("msg_missing", "relay.test")).toEqual({ kind: "gone", status: null });

      const b = await send(p, message({ sendAt, cc: ["carol@example.net"] }));
      clock.set(sendAt);
      expect(await s.dispatchScheduled(b!.id, "relay.test")).toEqual({ kind: "dispatched", status: "sent" });
      expect((await relayJobsOf(b!.id)).map((j) => j.rcpts)).toEqual([["bob@example.org"], ["carol@example.net"]]);
      expect(await s.detail(p, b!.id)).toMatchObject({ message: { status: "sent", relay: "relay.test", relayMessageId: expect.stringMatching(/^\d+$/) }, events: [{ event: "sent", at: new Date(sendAt).toISOString() }] });
      expect(await s.cancel(p, b!.id)).toEqual({ kind: "not_cancelable", status: "sent" });

      const c = await send(p, message({ to: "gone@example.org", sendAt: sendAt + 1 }));
      await s.markBounced((await send(p, message({ to: "gone@example.org" })))!.id, { bounceType: "hard", reason: "550" });
      expect(await s.dispatchScheduled(c!.id, "relay.test")).toEqual({ kind: "dispatched", status: "suppressed" });
    });

    it("of a cancel and a dispatch at once on two connections, exactly one changes the message", async () => {
      const p = await newProject(store.main);
      const other = make(await store.connect(), clock);
      for (let i = 0; i < 5; i++) {
        const m = await send(p, message({ sendAt: clock.now() }));
        const [canceled, dispatched] = await Promise.all([s.cancel(p, m!.id), other.dispatchScheduled(m!.id, "relay.test")]);
        const status = (await s.detail(p, m!.id))!.message.status;
        if (canceled.kind === "canceled") {
          expect(dispatched).toEqual({ kind: "gone", status: "canceled" });
          expect(status).toBe("canceled");
          expect(await relayJobsOf(m!.id)).toEqual([]);
        } else {
          expect(canceled).toEqual({ kind: "not_cancelable", status: "sent" });
          expect(dispatched).toEqual({ kind: "dispatched", status: "sent" });
          expect(status).toBe("sent");
          expect(await relayJobsOf(m!.id)).toHaveLength(1);
        }
      }
    });

    it("moves the status only along the allowed transitions, with history and events", async () => {
      const p = await newProject(store.main);
      const m = (await send(p, message({ campaign: "c1", category: "k" })))!;
      expect(await s.markDelayed(m.id, "451 try later")).toBe(true);
      expect(await s.markDelayed(m.id, "451 still")).toBe(true);
      expect(await s.getForRelay(m.id)).toMatchObject({ status: "delayed", lastError: "451 still" });
      expect(await s.markHandedOver(m.id, "Q123")).toBe(true);
      expect(await s.getForRelay(m.id)).toMatchObject({ status: "sent", relayMessageId: "Q123", lastError: null });
      expect(await s.markDelivered(m.id, "250 ok")).toBe(true);
      expect(await s.markDelivered(m.id, "250 ok")).toBe(false);
      expect(await s.markFailed(m.id, "x")).toBe(false);
      expect(await s.markDelayed(m.id, "x")).toBe(false);
      expect(await s.markBounced(m.id, { bounceType: "soft", reason: "mailbox full" })).toBe(true);
      expect(await s.markComplained(m.id)).toBe(false);
      expect(await s.getForRelay(m.id)).toMatchObject({ status: "soft_bounced", lastError: "mailbox full" });
      expect((await s.detail(p, m.id))!.events.map((e) => e.event)).toEqual(["sent", "delivered"]);
      expect(await s.events(p)).toEqual(["mail.delivered", "mail.bounced"]);
      // What the event names is read in the statement that moves the status (SQLite: RETURNING).
      expect(await s.eventData(p, "mail.delivered")).toEqual([{ messageId: m.id, to: "bob@example.org", campaign: "c1", category: "k", relay: "relay.test", relayMessageId: "Q123" }]);
      const f = (await send(p, message()))!;
      expect(await s.markFailed(f.id, "no MX")).toBe(true);
      expect(await s.getForRelay(f.id)).toMatchObject({ status: "failed", lastError: "no MX" });
      for (const mark of [() => s.markDelivered("msg_missing", "250"), () => s.markBounced("msg_missing", { bounceType: "hard", reason: "x" }), () => s.markComplained("msg_missing"), () => s.recordOpen("msg_missing"), () => s.recordUnsubscribe("msg_missing")]) {
        expect(await mark()).toBe(false);
      }
    });

    it("counts opens and clicks per message and link, and answers the link to redirect to", async () => {
      const p = await newProject(store.main);
      const m = (await send(p, message({ track: true, stream: "marketing", scope: "s", links: ["https://example.org/0", "https://example.org/1"] })))!;
      expect(await s.getTrackingInfo(m.id)).toEqual({
        id: m.id, projectId: p, status: "sent", to: "bob@example.org", from: "news@sender.example", stream: "marketing", scope: "s", track: true, unsubscribe: false,
        links: [{ idx: 0, url: "https://example.org/0" }, { idx: 1, url: "https://example.org/1" }],
      });
      expect(await s.getTrackingInfo("msg_missing")).toBeUndefined();
      expect(await s.recordOpen(m.id)).toBe(true);
      expect(await s.recordOpen(m.id)).toBe(true);
      expect(await s.recordClick(m.id, 1)).toBe("https://example.org/1");
      expect(await s.recordClick(m.id, 2)).toBeUndefined();
      expect(await s.recordClick(m.id, 2 ** 40)).toBeUndefined();
      expect(await s.recordClick("msg_missing", 0)).toBeUndefined();
      const d = (await s.detail(p, m.id))!;
      expect(d.message).toMatchObject({ opens: 2, clicks: 1 });
      expect(d.links).toEqual([{ idx: 0, url: "https://example.org/0", clicks: 0 }, { idx: 1, url: "https://example.org/1", clicks: 1 }]);
      expect(d.events.map((e) => e.event)).toEqual(["sent", "opened", "opened", "clicked"]);
      expect(await s.events(p)).toEqual(["mail.opened", "mail.opened", "mail.clicked"]);
      expect(await s.recordUnsubscribe(m.id)).toBe(true);
      expect((await send(p, message({ stream: "marketing", scope: "s" })))!.status).toBe("suppressed");
      expect((await send(p, message()))!.status).toBe("sent");
    });

    it("lists newest first with status and campaign filters and paging; the funnel counts since a time", async () => {
      const p = await newProject(store.main);
      const since = clock.now();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(1000);
        ids.push((await send(p, message({ campaign: i < 3 ? "spring" : undefined, to: `r${i}@example.org` })))!.id);
      }
      expect((await s.list(p, { limit: 10, offset: 0 })).map((m) => m.id)).toEqual([...ids].reverse());
      expect((await s.list(p, { limit: 2, offset: 1 })).map((m) => m.id)).toEqual([ids[3], ids[2]]);
      await s.markDelivered(ids[0], "250");
      await s.markDelivered(ids[1], "250");
      await s.recordOpen(ids[1]);
      await s.markBounced(ids[2], { bounceType: "hard", reason: "550" });
      await s.markComplained(ids[1]);
      expect(await s.list(p, { limit: 10, offset: 0, status: "delivered" })).toEqual([{ id: ids[0], toAddr: "r0@example.org", status: "delivered", opens: 0, clicks: 0 }]);
      expect((await s.list(p, { limit: 10, offset: 0, campaign: "spring" })).map((m) => m.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(await s.list(p, { limit: 10, offset: 0, campaign: "spring", status: "sent" })).toEqual([]);
      expect(await s.funnel(p, since)).toEqual({ total: 5, accepted: 5, delivered: 2, opened: 1, clicked: 0, bounced: 1, softBounced: 0, complained: 1 });
      expect(await s.funnel(p, since, "spring")).toEqual({ total: 3, accepted: 3, delivered: 2, opened: 1, clicked: 0, bounced: 1, softBounced: 0, complained: 1 });
      expect(await s.funnel(p, clock.now() + 1)).toEqual({ total: 0, accepted: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0, softBounced: 0, complained: 0 });
    });
  });
}
