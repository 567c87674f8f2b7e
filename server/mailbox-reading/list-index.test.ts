// The list's indexed paths give exactly what testing every message would: the substring filters
// `from` and `to` read the mailbox's distinct address lists (migrations.ts, version 42) and choose
// between walking newest first and reading the matching lists' index entries, so random mailboxes
// and needles (1 to 6 characters, mixed case, non-ASCII, whitespace) with every other filter and
// random paging are compared through the API against a plain filter over the same messages. The
// lists stay consistent when the writer thread stores messages concurrently, when messages go,
// and when the migration builds them from mail already stored.
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaults } from "../config.ts";
import { addressList } from "../inbound/delivery-repository.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { SqlMessageRepository } from "./message-repository.ts";
import { sendTo } from "../test/smtp.ts";

let p: TestPlatform;
let t: Tenant;
let mailbox: string;

beforeAll(async () => {
  // 24 senders at once below, all from 127.0.0.1: one address over the per-client share (decision I1).
  p = await startTestPlatform({ smtp: { ...defaults.smtp, port: 0, maxConnectionsPerClient: 30 } }, { runWorker: false });
  t = await p.newTenant("list-index", { rateLimit: 1_000_000_000 });
  mailbox = (await t.api("POST", "/v1/mailboxes", { name: "indexed", domain: t.domain, password: "correct horse" })).body.id;
});
afterAll(() => p.stop());

interface Message {
  uid: number;
  receivedMs: number;
  from: string[];
  to: string[];
  hasAttachment: boolean;
}

const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);
// Few characters, so that needles often match; case pairs and characters whose lowercase differs
// in length or exists only outside ASCII.
const CHARS = ["a", "A", "b", "B", "é", "É", "ü", "Ü", "ß", "İ", "ı", "K", ".", "-", "1", "_"];
const part = fc.array(fc.constantFrom(...CHARS), { minLength: 1, maxLength: 4 }).map((c) => c.join(""));
const address = fc.tuple(part, part).map(([local, domain]) => `${local}@${domain}.test`);
const message = fc.record({
  // Several messages share a second, and some share a millisecond (ordered by uid then).
  offsetMs: fc.integer({ min: 0, max: 8_000 }),
  from: fc.array(address, { minLength: 0, maxLength: 2 }),
  to: fc.array(address, { minLength: 1, maxLength: 3 }),
  hasAttachment: fc.boolean(),
});
const needle = fc.oneof(
  fc.array(fc.constantFrom(...CHARS, "@"), { minLength: 1, maxLength: 6 }).map((c) => c.join("")),
  fc.constantFrom("a b", " a", "ab ", "\u00a0a", "@", ".test"),
);
const instant = fc.integer({ min: -1_000, max: 9_000 }).map((ms) => T0 + ms);
// Each filter in some runs only, so that combinations still match something.
const sometimes = <T>(arb: fc.Arbitrary<T>, inRuns: number) => fc.oneof({ arbitrary: arb, weight: inRuns }, { arbitrary: fc.constant(undefined), weight: 100 - inRuns });
const cut = fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 6 }), fc.boolean());
const query = fc.record({
  from: sometimes(needle, 15),
  to: sometimes(needle, 10),
  // A needle cut from an address of the mailbox (so that it matches), its case changed; in place of the above.
  fromCut: sometimes(cut, 50),
  toCut: sometimes(cut, 30),
  since: sometimes(instant, 25),
  before: sometimes(instant, 25),
  hasAttachment: sometimes(fc.boolean(), 25),
  withIndex: sometimes(fc.nat(), 15),
  limit: sometimes(fc.integer({ min: 1, max: 12 }), 80),
  // Mostly within the matches, sometimes past them.
  offset: sometimes(fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 30 })), 60),
});

type Drawn = typeof query extends fc.Arbitrary<infer Q> ? Q : never;

const toMessages = (drawn: { offsetMs: number; from: string[]; to: string[]; hasAttachment: boolean }[]): Message[] =>
  drawn.map((m, i) => ({ uid: i + 1, receivedMs: T0 + m.offsetMs, from: m.from, to: m.to, hasAttachment: m.hasAttachment }));

/** The drawn query with its needles cut from the mailbox's addresses, and its `with` address picked. */
function resolveQuery(messages: Message[], drawn: Drawn): { q: Query & Drawn; withAddress?: string } {
  let q = drawn;
  const everyAddress = messages.flatMap((m) => [...m.from, ...m.to]);
  const withAddress = q.withIndex !== undefined && everyAddress.length ? everyAddress[q.withIndex % everyAddress.length] : undefined;
  for (const [role, cut] of [["from", q.fromCut], ["to", q.toCut]] as const) {
    const addresses = messages.flatMap((m) => m[role]);
    if (!cut || !addresses.length) continue;
    const a = addresses[cut[0] % addresses.length];
    const start = cut[1] % a.length;
    const piece = a.slice(start, start + cut[2]);
    q = { ...q, [role]: cut[3] ? piece.toUpperCase() : piece };
  }
  return { q, withAddress };
}

/** Stores messages the way the delivery repository does (its address list format), in one transaction. */
function store(messages: Message[]): void {
  p.db.exec("BEGIN IMMEDIATE");
  try {
    p.db.prepare("DELETE FROM mailbox_messages WHERE mailbox_id = ?").run(mailbox);
    p.db.prepare("DELETE FROM mailbox_message_addresses WHERE mailbox_id = ?").run(mailbox);
    const content = p.db.prepare("INSERT INTO message_contents (raw, size, detail) VALUES (?, 1, '{}') RETURNING id").get(Buffer.from("x")) as { id: number };
    for (const m of messages) {
      p.db.prepare(
        `INSERT INTO mailbox_messages (mailbox_id, uid, content_id, received_ms, subject, from_json, from_addrs, to_addrs, has_attachment, rfc_message_id, preview)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')`,
      ).run(mailbox, m.uid, content.id, m.receivedMs, `m${m.uid}`, JSON.stringify(m.from.map((email) => ({ email: email.toLowerCase() }))),
        addressList(m.from), addressList(m.to), m.hasAttachment ? 1 : 0, `m${m.uid}@x`);
      for (const a of new Set([...m.from, ...m.to].map((x) => x.toLowerCase()))) {
        p.db.prepare("INSERT INTO mailbox_message_addresses (mailbox_id, address, received_ms, uid) VALUES (?, ?, ?, ?)").run(mailbox, a, m.receivedMs, m.uid);
      }
    }
    p.db.exec("COMMIT");
  } catch (error) {
    p.db.exec("ROLLBACK");
    throw error;
  }
}

interface Query {
  from?: string;
  to?: string;
  since?: number;
  before?: number;
  hasAttachment?: boolean;
  limit?: number;
  offset?: number;
}

/** The seed's semantics, message by message. */
function expected(messages: Message[], q: Query, withAddress?: string) {
  const contains = (addresses: string[], n: string) => addresses.some((a) => a.toLowerCase().includes(n.trim().toLowerCase()));
  const matching = messages.filter((m) =>
    (q.from === undefined || contains(m.from, q.from)) &&
    (q.to === undefined || contains(m.to, q.to)) &&
    // Strictly later, and not in the same second as `since`.
    (q.since === undefined || (m.receivedMs > q.since && Math.floor(m.receivedMs / 1000) !== Math.floor(q.since / 1000))) &&
    (q.before === undefined || m.receivedMs < q.before) &&
    (q.hasAttachment === undefined || m.hasAttachment === q.hasAttachment) &&
    (withAddress === undefined || [...m.from, ...m.to].some((a) => a.toLowerCase() === withAddress.toLowerCase())),
  ).sort((a, b) => b.receivedMs - a.receivedMs || b.uid - a.uid);
  const offset = q.offset ?? 0;
  const page = matching.slice(offset, offset + (q.limit ?? 50));
  return { ids: page.map((m) => String(m.uid)), total: matching.length, hasMore: offset + page.length < matching.length };
}

describe("list filters on the indexes", () => {
  it("give what testing every message gives (from, to, since, before, hasAttachment, with, paging)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 0, maxLength: 40 }), query, async (drawn, drawnQuery) => {
        const messages = toMessages(drawn);
        store(messages);
        const { q, withAddress } = resolveQuery(messages, drawnQuery);
        const params = new URLSearchParams();
        for (const key of ["from", "to", "limit", "offset"] as const) if (q[key] !== undefined) params.set(key, String(q[key]));
        if (q.since !== undefined) params.set("since", new Date(q.since).toISOString());
        if (q.before !== undefined) params.set("before", new Date(q.before).toISOString());
        if (q.hasAttachment !== undefined) params.set("hasAttachment", String(q.hasAttachment));
        if (withAddress !== undefined) params.set("with", withAddress);
        const r = await t.api("GET", `/v1/mailboxes/${mailbox}/messages?${params}`);
        expect(r.status).toBe(200);
        const want = expected(messages, q, withAddress);
        expect({ q, ids: r.body.messages.map((m: { id: string }) => m.id), total: r.body.total, hasMore: r.body.hasMore }).toEqual({ q, ...want });
      }),
      { numRuns: 300 },
    );
  });

  it.each([
    ["the matching lists read once", {}],
    ["the lists tested again by the page", { knownLists: 0 }],
  ])("give the same through the address lists when no time range counts as short (repository, 0 rows; %s)", async (_, options) => {
    const repository = new SqlMessageRepository(storeOnSqlite(p.db), { addressLists: true, shortRange: 0, ...options });
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 0, maxLength: 40 }), query, async (drawn, drawnQuery) => {
        const messages = toMessages(drawn);
        store(messages);
        const { q, withAddress } = resolveQuery(messages, drawnQuery);
        // What the handler passes on (handlers.ts): needles trimmed and lowercased, `since` moved to the next second.
        const r = await repository.list(mailbox, {
          limit: q.limit ?? 50,
          offset: q.offset ?? 0,
          fromMs: q.since === undefined ? undefined : Math.floor(q.since / 1000) * 1000 + 1000,
          beforeMs: q.before,
          hasAttachment: q.hasAttachment,
          with: withAddress?.toLowerCase(),
          from: q.from?.trim().toLowerCase(),
          to: q.to?.trim().toLowerCase(),
        });
        const want = expected(messages, q, withAddress);
        expect({ q, ids: r.messages.map((m) => String(m.uid)), total: r.total }).toEqual({ q, ids: want.ids, total: want.total });
      }),
      { numRuns: 300 },
    );
  });

  it("on a larger mailbox, both ways of reading (walk newest first, or the matching lists) and long and short ranges agree with the scan", async () => {
    // 1,500 messages: dense needles make walking cheaper, rare ones reading the lists; ranges of
    // more than 1,000 messages go through the lists, shorter ones are tested row by row.
    const messages: Message[] = Array.from({ length: 1500 }, (_, i) => ({
      uid: i + 1,
      receivedMs: T0 + i * 700,
      from: [`Sender${i % 40}@Company${i % 7}.test`],
      to: [`me@${t.domain}`, `colleague${i % 13}@${t.domain}`],
      hasAttachment: i % 5 === 0,
    }));
    store(messages);
    const at = (i: number) => T0 + i * 700 + 300;
    const queries: Query[] = [
      { from: "company1" }, { from: "SENDER3" }, { from: "sender39@company4." }, { from: "c" }, { from: "zz" },
      { to: "colleague1" }, { to: "colleague12@" }, { to: "me@" }, { from: "sender1", to: "colleague1" },
      { from: "company2", offset: 80, limit: 7 }, { from: "sender2@", offset: 3, limit: 2 }, { to: "colleague4", hasAttachment: true },
      { from: "company1", since: at(100) }, { from: "sender39@", since: at(10), before: at(1400), limit: 3 }, { to: "colleague1", before: at(1200), offset: 40 },
      { from: "company3", since: at(1300) }, { to: "colleague12@", since: at(900), before: at(1000), hasAttachment: false },
    ];
    for (const q of queries) {
      const params = new URLSearchParams(
        Object.entries(q).map(([k, v]) => [k, k === "since" || k === "before" ? new Date(v as number).toISOString() : String(v)]),
      );
      const r = await t.api("GET", `/v1/mailboxes/${mailbox}/messages?${params}`);
      const want = expected(messages, q);
      expect({ q, ids: r.body.messages.map((m: { id: string }) => m.id), total: r.body.total, hasMore: r.body.hasMore }).toEqual({ q, ...want });
    }
  });
});

/** The distinct lists with their counts, as kept, and as counted from the messages. */
function listsKept(db: DatabaseSync) {
  const kept = db.prepare("SELECT mailbox_id, role, addrs, messages FROM mailbox_address_lists ORDER BY 1, 2, 3").all();
  const counted = db.prepare(
    `SELECT mailbox_id, role, addrs, COUNT(*) AS messages FROM (
       SELECT mailbox_id, 'from' AS role, from_addrs AS addrs FROM mailbox_messages UNION ALL SELECT mailbox_id, 'to', to_addrs FROM mailbox_messages
     ) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  ).all();
  return { kept, counted };
}

describe("the distinct address lists", () => {
  it("stay exact when the writer thread stores many messages at once, and when a mailbox goes", async () => {
    const other = (await t.api("POST", "/v1/mailboxes", { name: "busy", domain: t.domain, password: "correct horse" })).body.id;
    await Promise.all(Array.from({ length: 24 }, (_, i) =>
      sendTo(p.smtp!.port, { from: `Writer${i % 5}@Concurrent.test`, to: `busy@${t.domain}`, cc: i % 2 ? `indexed@${t.domain}` : undefined, subject: `c${i}`, text: "x" }),
    ));
    const { kept, counted } = listsKept(p.db);
    expect(kept).toEqual(counted);
    expect(kept.filter((r) => r.mailbox_id === other)).toHaveLength(5 + 2);
    const r = await t.api("GET", `/v1/mailboxes/${other}/messages?from=writer3@&limit=2`);
    expect(r.body).toMatchObject({ total: 5, hasMore: true });

    expect((await t.api("DELETE", `/v1/mailboxes/${other}`)).status).toBe(200);
    const after = listsKept(p.db);
    expect(after.kept).toEqual(after.counted);
    expect(after.kept.filter((row) => row.mailbox_id === other)).toEqual([]);
  });

});
