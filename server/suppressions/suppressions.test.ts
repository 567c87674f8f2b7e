// The suppression list through the real server (issue 41 item 1, decisions SU1, SU2), on SQLite
// and on PostgreSQL: bounces arrive over real SMTP sockets (a recipient MX refusing RCPT, and a
// DSN delivered to the message's VERP address at the inbound listener), the API lists them with
// the message that caused them, a removal lets the next send go out, and another project can
// neither see nor remove them. Test recipients are never suppressed; bad input changes nothing.
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import { sendTo } from "../test/smtp.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

describe.each(backends)("suppressions through the API on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let t: Tenant;
  let other: Tenant;
  let sendOnly: Tenant;
  let sink: SmtpSink;

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    sink = await startSmtpSink();
    sink.refuse = (rcpt) => (rcpt.startsWith("refused") ? { code: 550, text: "5.1.1 no such user here" } : undefined);
    p = await startTestPlatform({ databaseUrl, relay: { name: "", port: sink.port, allowLoopback: true } }, { runWorker: false });
    t = await p.newTenant(`sup-${backend}`);
    other = await p.newTenant(`supother-${backend}`);
    sendOnly = await p.newTenant(`supsend-${backend}`, { scopes: ["mail:send"] });
    await hostMailZone(p.services, "recipient.test");
  });
  afterAll(async () => {
    await p?.stop();
    await sink?.close();
    await database?.stop();
  });

  const send = async (to: string, fields: Record<string, unknown> = {}, tenant = t) => {
    const res = await tenant.api("POST", "/v1/mail/send", { from: `news@${tenant.domain}`, to, subject: "Hello", text: "Hi.", ...fields });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { id: string; status: string };
  };
  const statusOf = async (id: string) => (await t.api("GET", `/v1/mail/messages/${id}`)).body.message.status as string;
  /** Runs the queued work until the message leaves `from` (a reaction may queue more work). */
  async function settle(id: string, ...from: string[]): Promise<string> {
    for (let round = 0; round < 20; round++) {
      await p.worker.drain();
      const status = await statusOf(id);
      if (!from.includes(status)) return status;
    }
    return statusOf(id);
  }
  const list = async (query = "", tenant = t) => {
    const res = await tenant.api("GET", `/v1/mail/suppressions${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.suppressions as Record<string, unknown>[];
  };
  const relayedTo = (rcpt: string) => sink.messages.filter((m) => m.rcptTo.includes(rcpt));

  it("a DSN over SMTP lists the address with its message; blocked until removed, and the next send goes out", async () => {
    const m = await send("nobody@recipient.test");
    await p.worker.drain();
    const verp = relayedTo("nobody@recipient.test")[0].mailFrom;
    const dsn = readFileSync(path.join(import.meta.dirname, "../mail-sending/feedback/samples/dsn-hard-postfix.eml"), "utf8")
      .replaceAll("bounces+MSGTOKEN@shop.example", verp)
      .replace(/[a-z]+@recipient\.example/g, "nobody@recipient.test")
      .replaceAll("shop.example", t.domain)
      .replace(/\r?\n/g, "\r\n");
    await sendTo(p.smtp!.port, { envelope: { from: "", to: [verp] }, raw: dsn });
    expect(await statusOf(m.id)).toBe("bounced");

    const [entry, ...rest] = await list("?address=Nobody@recipient.test");
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ address: "nobody@recipient.test", reason: "bounced", stream: "all", scope: "", messageId: m.id });
    expect(entry.detail).toMatch(/^550 5\.1\.1 /);
    expect(new Date(entry.createdAt as string).toISOString()).toBe(entry.createdAt);

    expect((await send("nobody@recipient.test")).status).toBe("suppressed");
    expect((await send("nobody@recipient.test", { stream: "marketing" })).status).toBe("suppressed");

    // Another project sees nothing of it and cannot remove it.
    expect(await list("?address=nobody@recipient.test", other)).toEqual([]);
    const foreign = await other.api("DELETE", `/v1/mail/suppressions/${entry.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: "not_found" });
    expect(await list("?address=nobody@recipient.test")).toHaveLength(1);

    const removed = await t.api("DELETE", `/v1/mail/suppressions/${entry.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ deleted: true });
    expect(await list("?address=nobody@recipient.test")).toEqual([]);
    expect((await t.api("DELETE", `/v1/mail/suppressions/${entry.id}`)).status).toBe(404);

    const again = await send("nobody@recipient.test");
    expect(again.status).toBe("sent");
    await p.worker.drain();
    expect(relayedTo("nobody@recipient.test")).toHaveLength(2);
  });

  it("a 550 at the recipient's MX (RCPT over a real socket) suppresses; a complaint-free transactional stream is untouched by marketing blocks", async () => {
    const m = await send("refused@recipient.test");
    expect(await settle(m.id, "sent", "delayed")).toBe("bounced");
    expect(await list("?address=refused@recipient.test")).toMatchObject([{ reason: "bounced", stream: "all", messageId: m.id }]);
    expect(await list("?reason=bounced&stream=transactional")).toEqual(expect.arrayContaining([expect.objectContaining({ address: "refused@recipient.test" })]));
  });

  it("a manual block: reason manual, no message; per stream and scope as S12 and T4 decide; adding it again answers the same", async () => {
    const add = await t.api("POST", "/v1/mail/suppressions", { address: "Shopper@recipient.test", stream: "marketing", scope: "shop-a" });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    expect(add.body).toMatchObject({ address: "shopper@recipient.test", reason: "manual", stream: "marketing", scope: "shop-a", messageId: null, detail: null });
    expect((await send("shopper@recipient.test", { stream: "marketing", scope: "shop-a" })).status).toBe("suppressed");
    expect((await send("shopper@recipient.test", { stream: "marketing", scope: "shop-b" })).status).toBe("sent");
    expect((await send("shopper@recipient.test", { stream: "transactional", scope: "shop-a" })).status).toBe("sent");
    const again = await t.api("POST", "/v1/mail/suppressions", { address: "shopper@recipient.test", stream: "marketing", scope: "shop-a" });
    expect(again.body).toEqual(add.body);

    const all = await t.api("POST", "/v1/mail/suppressions", { address: "blocked@recipient.test" });
    expect(all.body).toMatchObject({ stream: "all", scope: "", reason: "manual" });
    expect((await send("blocked@recipient.test")).status).toBe("suppressed");

    const addresses = async (q: string) => (await list(q)).map((s) => s.address);
    expect(await addresses("?reason=manual")).toEqual(["blocked@recipient.test", "shopper@recipient.test"]);
    expect(await addresses("?reason=manual&stream=transactional")).toEqual(["blocked@recipient.test"]);
    expect(await addresses("?reason=manual&scope=shop-b")).toEqual(["blocked@recipient.test"]);
    expect(await addresses("?reason=manual&scope=shop-a")).toEqual(["blocked@recipient.test", "shopper@recipient.test"]);
    expect(await addresses(`?reason=manual&since=${encodeURIComponent(add.body.createdAt)}`)).toEqual(["blocked@recipient.test"]);
    // The cursor: one a page, newest first, until an empty page.
    const first = await list("?reason=manual&limit=1");
    const second = await list(`?reason=manual&limit=1&before=${first[0].id}`);
    expect([first[0].address, second[0].address]).toEqual(["blocked@recipient.test", "shopper@recipient.test"]);
    expect(await list(`?reason=manual&limit=1&before=${second[0].id}`)).toEqual([]);
  });

  it("test recipients are never suppressed: a sandbox bounce or complaint leaves the list empty, adding one is refused", async () => {
    const bounced = await send("bounced@sandbox.platform.test");
    expect(await settle(bounced.id, "sent", "delivered")).toBe("bounced");
    const complained = await send("complained@sandbox.platform.test", { stream: "marketing" });
    expect(await settle(complained.id, "sent", "delivered")).toBe("complained");
    expect(await list("?address=bounced@sandbox.platform.test")).toEqual([]);
    expect(await list("?address=complained@sandbox.platform.test")).toEqual([]);
    expect((await send("bounced@sandbox.platform.test")).status).toBe("sent");
    expect((await send("complained@sandbox.platform.test", { stream: "marketing" })).status).toBe("sent");

    const before = await list();
    const refused = await t.api("POST", "/v1/mail/suppressions", { address: "bounced@sandbox.platform.test" });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "invalid_request", details: [{ path: "body.address" }] });
    expect(refused.body.details[0].message).toContain("never suppressed");
    expect(await list()).toEqual(before);
  });

  it.each<[string, string, string, unknown?]>([
    ["no address", "POST", "", {}],
    ["not an address", "POST", "", { address: "not an address" }],
    ["a scope on a block of all streams", "POST", "", { address: "x@recipient.test", stream: "all", scope: "shop-a" }],
    ["an unknown stream", "POST", "", { address: "x@recipient.test", stream: "transactional" }],
    ["a scope too long", "POST", "", { address: "x@recipient.test", stream: "marketing", scope: "s".repeat(129) }],
    ["an unknown reason", "GET", "?reason=spam", undefined],
    ["a cursor below 1", "GET", "?before=0", undefined],
    ["a limit above 200", "GET", "?limit=201", undefined],
    ["a since that is no date-time", "GET", "?since=yesterday", undefined],
    ["an unknown stream filter", "GET", "?stream=all", undefined],
    ["an id that is no number", "DELETE", "/abc", undefined],
  ])("%s is 400 with { error, code, details } and changes nothing", async (_, method, suffix, body) => {
    const before = await list();
    const res = await t.api(method, `/v1/mail/suppressions${suffix}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_request", error: expect.any(String), details: expect.any(Array) });
    expect(await list()).toEqual(before);
  });

  it("a key without mail:suppressions gets 403 naming it", async () => {
    for (const [method, url, body] of [["GET", "/v1/mail/suppressions"], ["POST", "/v1/mail/suppressions", { address: "x@recipient.test" }], ["DELETE", "/v1/mail/suppressions/1"]] as const) {
      const res = await sendOnly.api(method, url, body);
      expect(res.status).toBe(403);
      expect(res.headers.get("www-authenticate")).toContain('scope="mail:suppressions"');
    }
  });
});
