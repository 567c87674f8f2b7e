// The behaviour of received mail's storage on either backend (server/test/backends.ts): the
// listener's DeliveryRepository (lookup, store) and the reading MessageRepository (list with the
// seed's filters, get, lookup by Message-ID), checked together since one writes what the other
// reads. The list filters are also compared with a plain filter over the same messages.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { DeliveredCopy, DeliveryRepository, StoredMessage } from "../inbound/delivery-repository.ts";
import { newMailDomainRow, newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { ListFilter, MessageRepository } from "./message-repository.ts";

export interface ReceivedMailStorage {
  delivery: DeliveryRepository;
  messages: MessageRepository;
}

const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);
let domains = 0;
let ids = 0;

export function received(over: { from?: string[]; to?: string[]; receivedMs?: number; subject?: string; hasAttachment?: boolean; rfcMessageId?: string; raw?: Buffer; quarantined?: boolean } = {}): StoredMessage {
  const from = (over.from ?? ["alice@example.org"]).map((email) => ({ email, name: email.split("@")[0] }));
  const to = over.to ?? ["bob@example.org"];
  const rfcMessageId = over.rfcMessageId ?? `m${++ids}@example.org`;
  return {
    raw: over.raw ?? Buffer.from(`Message-ID: <${rfcMessageId}>\r\nSubject: ${over.subject ?? "Hi"}\r\n\r\nbody\r\n`),
    receivedMs: over.receivedMs ?? T0,
    subject: over.subject ?? "Hi",
    from,
    recipientAddresses: to.map((a) => a.toLowerCase()),
    hasAttachment: over.hasAttachment ?? false,
    rfcMessageId,
    preview: "body",
    quarantined: over.quarantined ?? false,
    detail: { messageId: rfcMessageId, inReplyTo: [], references: ["<r1@example.org>"], to: to.map((email) => ({ email })), text: "body", html: null, headers: [{ name: "Subject", value: over.subject ?? "Hi" }] },
  };
}

export function describeReceivedMailStorage(backend: BackendName, make: (c: Connection) => ReceivedMailStorage): void {
  describe(`received mail storage on ${backend}`, () => {
    const store = useStore(backend);
    let s: ReceivedMailStorage;
    beforeAll(() => {
      s = make(store.main);
    });

    /** A project with a mail domain and mailboxes (and groups: `name: [members]`). */
    async function setup(mailboxes: string[], groups: Record<string, string[]> = {}) {
      const projectId = await newProject(store.main);
      const domain = `in${++domains}.example.test`;
      const domainId = await newMailDomainRow(store.main, projectId, domain);
      const idOf: Record<string, string> = {};
      for (const [name, kind] of [...mailboxes.map((m) => [m, "mailbox"]), ...Object.keys(groups).map((g) => [g, "group"])]) {
        idOf[name] = `mbx_${domains}${name}`;
        await sql(store.main, "INSERT INTO mailboxes (id, project_id, domain_id, kind, email, created_at) VALUES (?, ?, ?, ?, ?, ?)", [idOf[name], projectId, domainId, kind, `${name}@${domain}`, new Date().toISOString()]);
      }
      for (const [g, members] of Object.entries(groups)) {
        for (const m of members) await sql(store.main, "INSERT INTO group_members (group_id, mailbox_id, created_at) VALUES (?, ?, ?)", [idOf[g], idOf[m], new Date().toISOString()]);
      }
      const address = (name: string) => `${name}@${domain}`;
      const usedBytes = async (name: string) => (await sql<{ used_bytes: number }>(store.main, "SELECT used_bytes FROM mailboxes WHERE id = ?", [idOf[name]]))[0].used_bytes;
      const events = async () => (await sql<{ payload: string }>(store.main, "SELECT payload FROM events WHERE project_id = ? AND type = 'mail.received'", [projectId])).map((r) => JSON.parse(r.payload).data);
      return { projectId, domain, idOf, address, usedBytes, events };
    }

    it("only a verified domain receives: a claim is foreign, a mailbox of a domain that lost its proof waits, another owner's name is unknown", async () => {
      const t = await setup(["ann"]);
      const claimant = await newProject(store.main, "claimant");
      await newMailDomainRow(store.main, claimant, "claimed-only.example.test", "pending");
      expect(await s.delivery.lookup("x@claimed-only.example.test")).toEqual({ kind: "foreign" });

      await sql(store.main, "UPDATE mail_domains SET status = 'lost' WHERE name = ?", [t.domain]);
      expect(await s.delivery.lookup(t.address("ann"))).toEqual({ kind: "unverified" });
      expect(await s.delivery.lookup(t.address("nobody"))).toEqual({ kind: "foreign" });

      // Another project proved control of the name meanwhile: the old mailbox is no address of its.
      const owner = await newProject(store.main, "new owner");
      await sql(store.main,
        `INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key_sealed, dkim_public_key, verification_token, created_at, status)
         VALUES (?, ?, ?, 'platform', 'sealed', 'public', 'token2', ?, 'verified')`,
        [`dom_owner${domains}`, owner, t.domain, new Date().toISOString()]);
      expect(await s.delivery.lookup(t.address("ann"))).toEqual({ kind: "unknown" });
    });

    const sortCopies = (copies: DeliveredCopy[]) => [...copies].sort((a, b) => a.mailboxId.localeCompare(b.mailboxId));

    it("looks up mailboxes and groups without case; an unknown name on our domain is unknown, another domain foreign", async () => {
      const t = await setup(["ann"], { team: ["ann"] });
      expect(await s.delivery.lookup(t.address("ANN"))).toEqual({ kind: "mailbox", id: t.idOf.ann, projectId: t.projectId, email: t.address("ann") });
      expect(await s.delivery.lookup(t.address("team"))).toEqual({ kind: "group", id: t.idOf.team, projectId: t.projectId, email: t.address("team") });
      expect(await s.delivery.lookup(t.address("nobody"))).toEqual({ kind: "unknown" });
      expect(await s.delivery.lookup("ann@elsewhere.example")).toEqual({ kind: "foreign" });
    });

    it("stores one copy per distinct mailbox reached, counts usedBytes per copy and emits mail.received per copy", async () => {
      const t = await setup(["ann", "ben", "cid"], { team: ["ann", "ben"] });
      const m = received({ to: [t.address("ann"), t.address("team")], raw: Buffer.from([0, 255, 1, 0x0d, 0x0a, 0x80]) });
      const copies = await s.delivery.store(m, [t.address("ann"), t.address("team"), t.address("nobody")]);
      expect(sortCopies(copies)).toEqual(sortCopies([
        { projectId: t.projectId, mailboxId: t.idOf.ann, mailbox: t.address("ann"), uid: 1 },
        { projectId: t.projectId, mailboxId: t.idOf.ben, mailbox: t.address("ben"), uid: 1 },
      ]));
      expect(await t.usedBytes("ann")).toBe(6);
      expect(await t.usedBytes("ben")).toBe(6);
      expect(await t.usedBytes("cid")).toBe(0);
      const raws = await sql<{ raw: Uint8Array; size: number }>(store.main, "SELECT c.raw, c.size FROM message_contents c JOIN mailbox_messages m ON m.content_id = c.id WHERE m.mailbox_id IN (?, ?)", [t.idOf.ann, t.idOf.ben]);
      expect(raws.map((r) => [Buffer.from(r.raw).toString("hex"), r.size])).toEqual([["00ff010d0a80", 6], ["00ff010d0a80", 6]]);
      const contents = await sql<{ n: number }>(store.main, "SELECT COUNT(DISTINCT content_id) AS n FROM mailbox_messages WHERE mailbox_id IN (?, ?)", [t.idOf.ann, t.idOf.ben]);
      expect(contents[0].n).toBe(1);
      const events = await t.events();
      expect(events.map((e) => e.mailboxId).sort()).toEqual([t.idOf.ann, t.idOf.ben].sort());
      expect(events[0]).toMatchObject({ messageId: "1", rfcMessageId: m.rfcMessageId, subject: "Hi", receivedAt: new Date(T0).toISOString(), hasAttachment: false });
      expect((await s.delivery.store(received(), [t.address("ann")]))[0].uid).toBe(2);
      expect(await s.delivery.store(received(), [t.address("nobody"), "x@elsewhere.example"])).toEqual([]);
    });

    it("numbers the copies of one mailbox 1, 2, 3... when two connections store into it at once", async () => {
      const t = await setup(["busy", "also"]);
      const other = make(await store.connect());
      const sent = Array.from({ length: 16 }, (_, i) => received({ receivedMs: T0 + i }));
      const stored = await Promise.all(sent.map((m, i) => (i % 2 ? other : s).delivery.store(m, [t.address("busy"), t.address("also")])));
      const uids = (name: string) => stored.map((copies) => copies.find((c) => c.mailboxId === t.idOf[name])!.uid).sort((a, b) => a - b);
      expect(uids("busy")).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      expect(uids("also")).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
      expect((await s.messages.list(t.idOf.busy, { limit: 50, offset: 0 })).total).toBe(16);
      expect(await t.usedBytes("busy")).toBe(sent.reduce((sum, m) => sum + m.raw.length, 0));
    });

    it("reads one message whole, only in its mailbox", async () => {
      const t = await setup(["ann", "ben"]);
      const m = received({ subject: "Report", hasAttachment: true, from: ["Zed@Example.org"] });
      const [copy] = await s.delivery.store(m, [t.address("ann")]);
      expect(await s.messages.get(t.idOf.ann, copy.uid)).toEqual({
        uid: copy.uid, subject: "Report", receivedMs: T0, hasAttachment: true, rfcMessageId: m.rfcMessageId, from: m.from, preview: "body", quarantined: false, detail: m.detail,
      });
      expect(await s.messages.get(t.idOf.ben, copy.uid)).toBeUndefined();
      expect(await s.messages.get(t.idOf.ann, 99)).toBeUndefined();
      expect(await s.messages.get(t.idOf.ann, 2 ** 40)).toBeUndefined();
    });

    it("keeps the DMARC quarantine mark of each message, in the list and the message", async () => {
      const t = await setup(["ann"]);
      const [plain] = await s.delivery.store(received({ subject: "plain" }), [t.address("ann")]);
      const [marked] = await s.delivery.store(received({ subject: "forged", quarantined: true, receivedMs: T0 + 1000 }), [t.address("ann")]);
      const list = await s.messages.list(t.idOf.ann, { limit: 50, offset: 0 });
      expect(list.messages.map((m) => [m.subject, m.quarantined])).toEqual([["forged", true], ["plain", false]]);
      expect((await s.messages.get(t.idOf.ann, marked.uid))!.quarantined).toBe(true);
      expect((await s.messages.get(t.idOf.ann, plain.uid))!.quarantined).toBe(false);
    });

    it("lists newest first (uid breaks ties), pages, and counts the total", async () => {
      const t = await setup(["ann"]);
      for (const ms of [0, 1000, 1000, 2500, 4000]) await s.delivery.store(received({ receivedMs: T0 + ms }), [t.address("ann")]);
      const all = await s.messages.list(t.idOf.ann, { limit: 50, offset: 0 });
      expect(all.messages.map((m) => [m.uid, m.receivedMs - T0])).toEqual([[5, 4000], [4, 2500], [3, 1000], [2, 1000], [1, 0]]);
      expect(all.total).toBe(5);
      const page = await s.messages.list(t.idOf.ann, { limit: 2, offset: 1 });
      expect(page).toEqual({ messages: all.messages.slice(1, 3), total: 5 });
      expect(await s.messages.list(t.idOf.ann, { limit: 2, offset: 9 })).toEqual({ messages: [], total: 5 });
      expect((await s.messages.list(t.idOf.ann, { limit: 50, offset: 0, fromMs: T0 + 1000, beforeMs: T0 + 4000 })).messages.map((m) => m.uid)).toEqual([4, 3, 2]);
      expect(await s.messages.list("mbx_missing", { limit: 50, offset: 0 })).toEqual({ messages: [], total: 0 });
    });

    it("filters like a plain filter over the same messages: range, hasAttachment, with, from and to substrings", async () => {
      const t = await setup(["ann"]);
      const people = ["al%ce@ex_ample.org", "bob@example.org", "carol@other.test", "dan@x.example.org", "eve@ÉCOLE.test"];
      const plain: { uid: number; ms: number; from: string[]; to: string[]; att: boolean }[] = [];
      const pick = (i: number, n: number) => Array.from({ length: n }, (_, k) => people[(i * 3 + k * 2) % people.length]);
      for (let i = 0; i < 30; i++) {
        const m = { ms: T0 + Math.floor(i / 3) * 1000 + (i % 2), from: pick(i, 1 + (i % 2)), to: pick(i + 1, 1 + (i % 3)), att: i % 4 === 0 };
        const [copy] = await s.delivery.store(received({ receivedMs: m.ms, from: m.from, to: m.to, hasAttachment: m.att }), [t.address("ann")]);
        plain.push({ uid: copy.uid, ...m });
      }
      const lower = (xs: string[]) => xs.map((x) => x.toLowerCase());
      const matches = (m: (typeof plain)[number], f: ListFilter) =>
        (f.fromMs === undefined || m.ms >= f.fromMs) && (f.beforeMs === undefined || m.ms < f.beforeMs) && (f.hasAttachment === undefined || m.att === f.hasAttachment) &&
        (f.with === undefined || lower([...m.from, ...m.to]).includes(f.with)) &&
        (f.from === undefined || (!/\s/.test(f.from) && lower(m.from).some((a) => a.includes(f.from!)))) &&
        (f.to === undefined || (!/\s/.test(f.to) && lower(m.to).some((a) => a.includes(f.to!))));
      const needle = fc.constantFrom("%", "_", "al%c", "ex_a", "example", "o", "é", "école", "org", "bob@example.org", "b c", ".test", "@", "zzz", "rg dan");
      const filter = fc.record({
        fromMs: fc.option(fc.integer({ min: -1, max: 11 }).map((s) => T0 + s * 1000), { nil: undefined }),
        beforeMs: fc.option(fc.integer({ min: 0, max: 11 }).map((s) => T0 + s * 1000), { nil: undefined }),
        hasAttachment: fc.option(fc.boolean(), { nil: undefined }),
        with: fc.option(fc.constantFrom(...lower(people), "nobody@example.org"), { nil: undefined }),
        from: fc.option(needle, { nil: undefined }),
        to: fc.option(needle, { nil: undefined }),
        limit: fc.integer({ min: 1, max: 12 }),
        offset: fc.integer({ min: 0, max: 20 }),
      });
      await fc.assert(
        fc.asyncProperty(filter, async (f) => {
          const expected = plain.filter((m) => matches(m, f)).sort((a, b) => b.ms - a.ms || b.uid - a.uid);
          const got = await s.messages.list(t.idOf.ann, f);
          expect(got.total).toBe(expected.length);
          expect(got.messages.map((m) => m.uid)).toEqual(expected.slice(f.offset, f.offset + f.limit).map((m) => m.uid));
        }),
        { numRuns: 150, seed: 15 },
      );
    });

    it("finds by Message-ID: exactly through the index, else without case by a scan that reports how far it went", async () => {
      const t = await setup(["ann"]);
      for (let i = 0; i < 5; i++) await s.delivery.store(received({ receivedMs: T0 + i * 1000, rfcMessageId: `id${i}@Host.Example` }), [t.address("ann")]);
      expect(await s.messages.findByMessageId(t.idOf.ann, "id3@Host.Example", {})).toEqual({ found: { uid: 4, subject: "Hi", rfcMessageId: "id3@Host.Example" }, source: "index", scanned: 1, reachedBackMs: T0 + 3000 });
      expect(await s.messages.findByMessageId(t.idOf.ann, "ID1@host.example", {})).toEqual({ found: { uid: 2, subject: "Hi", rfcMessageId: "id1@Host.Example" }, source: "scan", scanned: 4, reachedBackMs: T0 + 1000 });
      expect(await s.messages.findByMessageId(t.idOf.ann, "missing@host.example", {})).toEqual({ source: "scan", scanned: 5, reachedBackMs: T0 });
      expect(await s.messages.findByMessageId(t.idOf.ann, "id0@Host.Example", { fromMs: T0 + 2000 })).toEqual({ source: "scan", scanned: 3, reachedBackMs: T0 + 2000 });
      expect(await s.messages.findByMessageId(t.idOf.ann, "id0@Host.Example", { fromMs: T0 + 9000 })).toEqual({ source: "scan", scanned: 0, reachedBackMs: undefined });
    });
  });
}
