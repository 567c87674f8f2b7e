// A domain changing hands (decision O8) on its own: which moves of a claim release its addresses
// and what a release takes (addresses, groups, memberships, webmail links and sessions) and keeps
// (stored mail's mailbox, other domains' entries). Real repositories on SQLite, wired as
// db/store-services.ts wires them; the rows are read directly, since the readers filter released
// mailboxes themselves and would hide a release that left rows behind.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { backendOn } from "../db/backend.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { systemClock } from "../jobs/clock.ts";
import { SqlMailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { newMailDomainRow, newProject, sql, useStore } from "../test/backends.ts";
import { SqlWebmailRepository } from "../webmail/webmail-repository.ts";
import { MAILBOXES_CHANNEL, SqlMailboxRepository } from "./mailbox-repository.ts";
import { mailboxReleased, releaseAddresses } from "./released.ts";

const store = useStore("sqlite");
const AT = "2026-11-29T10:00:00.000Z";
let mailDomains: SqlMailDomainRepository;
let mailboxes: SqlMailboxRepository;
let webmail: SqlWebmailRepository;
let a: string;
let b: string;
let n = 0;
const notified: (string | undefined)[] = [];

beforeAll(async () => {
  const db = store.main.backend === "sqlite" ? store.main.db : undefined;
  mailboxes = new SqlMailboxRepository(store.main.store);
  webmail = new SqlWebmailRepository(store.main.store);
  // The claims' store: its transactions run the release, so its listeners hear the notify.
  const claims = storeOnSqlite(db!);
  await claims.listen(MAILBOXES_CHANNEL, (p) => notified.push(p));
  mailDomains = new SqlMailDomainRepository(backendOn(claims, systemClock), new SecretBox(randomBytes(32)), (tx, claim, at) =>
    mailboxes.releaseClaim(tx, claim, at),
  );
  [a, b] = [await newProject(store.main, "a"), await newProject(store.main, "b")];
});

interface Row {
  id: string;
  kind: string;
  email: string;
  released_email: string | null;
  released_at: string | null;
}
const rows = (domainId: string) => sql<Row>(store.main, "SELECT id, kind, email, released_email, released_at FROM mailboxes WHERE domain_id = ? ORDER BY email", [domainId]);
const count = async (table: string, mailboxId: string) =>
  Number((await sql<{ n: number }>(store.main, `SELECT COUNT(*) AS n FROM ${table} WHERE mailbox_id = ?`, [mailboxId]))[0]!.n);
const members = async (groupId: string) => (await mailboxes.listMembers(groupId)).map((m) => m.id).sort();

async function box(domainId: string, email: string, kind: "mailbox" | "group" = "mailbox") {
  return (await mailboxes.create({ projectId: a, domainId, kind, email, passwordHash: null, description: null }))!;
}

/**
 * Project a's claim `d` of a fresh name with two mailboxes (one with a webmail link and session)
 * and a group of both; its other claim `e` with a mailbox and a group holding a mailbox of each.
 */
async function world() {
  const name = `h${++n}.example`;
  const d = await newMailDomainRow(store.main, a, name);
  const e = await newMailDomainRow(store.main, a, `other.${name}`);
  const [m1, m2, g] = [await box(d, `one@${name}`), await box(d, `two@${name}`), await box(d, `all@${name}`, "group")];
  const [e1, ge] = [await box(e, `keep@other.${name}`), await box(e, `team@other.${name}`, "group")];
  for (const [group, member] of [[g, m1], [g, m2], [ge, m1], [ge, e1]] as const) expect(await mailboxes.addMember(group.id, member.id)).toBe(true);
  for (const m of [m1, e1]) {
    await webmail.createLink(`link-${m.id}`, m.id, Date.parse(AT) + 60_000);
    await webmail.createSession(`session-${m.id}`, { mailboxId: m.id, frameAncestors: [] }, Date.parse(AT) + 60_000);
  }
  return { name, d, e, m1, m2, g, e1, ge };
}
type World = Awaited<ReturnType<typeof world>>;

/** A project b claim of the same name proving control: the name changes hands. */
async function otherProjectProves(w: World) {
  const other = (await mailDomains.create({ projectId: b, name: w.name, dkimSelector: "s", dkimPrivateKey: "k", dkimPublicKey: "p", verificationToken: "t" }))!;
  expect(await mailDomains.takeOwnership(other.id, "dns", AT)).toBe(true);
}

const moves: { move: string; act: (w: World) => Promise<void>; releases: boolean }[] = [
  { move: "verified → ended (a check ends the claim)", act: (w) => mailDomains.markUnproven(w.d, "ended", "gone", AT), releases: true },
  { move: "verified → lost (the proof is missing, the claim may come back)", act: (w) => mailDomains.markUnproven(w.d, "lost", "missing", AT), releases: false },
  { move: "verified → pending", act: (w) => mailDomains.markUnproven(w.d, "pending", "again", AT), releases: false },
  {
    move: "lost → ended",
    act: async (w) => {
      await mailDomains.markUnproven(w.d, "lost", "missing", "2026-11-28T00:00:00.000Z");
      await mailDomains.markUnproven(w.d, "ended", "gone", AT);
    },
    releases: true,
  },
  {
    move: "lost → ended by another project proving control",
    act: async (w) => {
      await mailDomains.markUnproven(w.d, "lost", "missing", "2026-11-28T00:00:00.000Z");
      await otherProjectProves(w);
    },
    releases: true,
  },
  { move: "verified, another project's claim of the name refused", act: (w) => otherProjectProves(w).catch(() => {}), releases: false },
];

describe("which moves of a claim release its addresses", () => {
  it.each(moves)("$move releases: $releases", async ({ act, releases }) => {
    const w = await world();
    const before = await rows(w.d);
    await new Promise((resolve) => setImmediate(resolve)); // the set-up's own notes
    notified.length = 0;
    await act(w);
    await new Promise((resolve) => setImmediate(resolve)); // notes are delivered after the commit's turn
    // The other claim of the project keeps everything but the released mailbox's membership.
    expect(await rows(w.e)).toEqual([
      { id: w.e1.id, kind: "mailbox", email: w.e1.email, released_email: null, released_at: null },
      { id: w.ge.id, kind: "group", email: w.ge.email, released_email: null, released_at: null },
    ]);
    expect([await count("webmail_links", w.e1.id), await count("webmail_sessions", w.e1.id)]).toEqual([1, 1]);
    if (!releases) {
      expect(await rows(w.d)).toEqual(before);
      expect(await members(w.g.id)).toEqual([w.m1.id, w.m2.id].sort());
      expect(await members(w.ge.id)).toEqual([w.m1.id, w.e1.id].sort());
      expect([await count("webmail_links", w.m1.id), await count("webmail_sessions", w.m1.id)]).toEqual([1, 1]);
      expect(notified).toEqual([]);
      return;
    }
    // Mailboxes stay (their mail), their address moves aside; the group is gone.
    expect(await rows(w.d)).toEqual(
      [w.m1, w.m2].map((m) => ({ id: m.id, kind: "mailbox", email: m.id, released_email: m.email, released_at: AT })).sort((x, y) => x.email.localeCompare(y.email)),
    );
    expect(await members(w.ge.id)).toEqual([w.e1.id]);
    expect([await count("webmail_links", w.m1.id), await count("webmail_sessions", w.m1.id), await count("group_members", w.m2.id)]).toEqual([0, 0, 0]);
    // The address is free: the new owner's project b can take it.
    expect(await sql(store.main, "SELECT id FROM mailboxes WHERE email = ?", [w.m1.email])).toEqual([]);
    expect(notified).toContain(a);
  });
});

describe("releaseAddresses", () => {
  it("answers whether a mailbox or a group changed, and keeps an earlier release as it was", async () => {
    const name = `r${++n}.example`;
    const [empty, groupsOnly, boxesOnly] = [await newMailDomainRow(store.main, a, name), await newMailDomainRow(store.main, a, `g.${name}`), await newMailDomainRow(store.main, a, `m.${name}`)];
    await box(groupsOnly, `team@g.${name}`, "group");
    const m = await box(boxesOnly, `me@m.${name}`);
    const release = (claimId: string, at: string) => store.main.store.transaction((tx) => releaseAddresses(tx, claimId, at));
    expect(await release(empty, AT)).toBe(false);
    expect(await release(groupsOnly, AT)).toBe(true);
    expect(await rows(groupsOnly)).toEqual([]);
    expect(await release(boxesOnly, AT)).toBe(true);
    // Released once: a later end (the claim reopened and ended again) changes nothing of it.
    expect(await release(boxesOnly, "2026-12-01T00:00:00.000Z")).toBe(false);
    expect(await rows(boxesOnly)).toEqual([{ id: m.id, kind: "mailbox", email: m.id, released_email: m.email, released_at: AT }]);
  });

  it("a reopened claim proven again gets its address back for a new mailbox only; the old one stays released", async () => {
    const w = await world();
    await mailDomains.markUnproven(w.d, "ended", "gone", AT);
    await mailDomains.markUnproven(w.d, "pending", "connected again", "2026-11-30T00:00:00.000Z", { reopen: true });
    expect(await mailDomains.takeOwnership(w.d, "dns", "2026-11-30T00:00:00.000Z")).toBe(true);
    const again = await box(w.d, w.m1.email);
    await mailDomains.markUnproven(w.d, "ended", "gone again", "2026-12-01T00:00:00.000Z");
    const byId = new Map((await rows(w.d)).map((r) => [r.id, r]));
    expect(byId.get(w.m1.id)).toMatchObject({ email: w.m1.id, released_email: w.m1.email, released_at: AT });
    expect(byId.get(again.id)).toMatchObject({ email: again.id, released_email: w.m1.email, released_at: "2026-12-01T00:00:00.000Z" });
  });
});

describe("mailboxReleased", () => {
  it("refuses with 409 not_ready naming the mailbox, the day, the domain and where the mail stays", async () => {
    const e = mailboxReleased(
      { id: "mbx_1", email: "me@sub.shop.example", releasedAt: AT },
      "mailboxId",
    );
    const message =
      `the mailbox me@sub.shop.example was released on ${AT}, when this project's claim of sub.shop.example ended: the address is no longer this project's ` +
      "(GET /v1/maildomains/sub.shop.example says why); its stored mail stays readable through GET /v1/mailboxes/mbx_1/messages until the mailbox is deleted";
    expect([e.statusCode, e.code, e.message, e.details]).toEqual([409, "not_ready", message, [{ path: "mailboxId", message }]]);
  });
});
