// The three reading operations on mail that arrived over real SMTP: every filter of the seed,
// the same-second rule of `since`, paging, the whole message, lookups by Message-ID both ways
// with the M2 answers, and per-mailbox ids. A manual clock fixes the receive times.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { sendTo } from "../test/smtp.ts";

const T0 = Date.UTC(2026, 10, 20, 8, 15, 0);
const clock = manualClock(T0);
let p: TestPlatform;
let t: Tenant;
let other: Tenant;
const ids: Record<string, string> = {};
let alice: string;
let bob: string;

const send = async (atMs: number, mail: Parameters<typeof sendTo>[1]) => {
  clock.set(atMs);
  await sendTo(p.smtp!.port, mail);
};
const list = async (id: string, query = "") => (await t.api("GET", `/v1/mailboxes/${id}/messages${query}`)).body;
const subjects = async (query = "") => (await list(alice, query)).messages.map((m: { subject: string }) => m.subject);

beforeAll(async () => {
  p = await startTestPlatform({}, { clock, runWorker: false });
  t = await p.newTenant("reading");
  other = await p.newTenant("reading-other");
  alice = (await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" })).body.id;
  bob = (await t.api("POST", "/v1/mailboxes", { name: "bob", domain: t.domain, password: "correct horse" })).body.id;
  const to = `alice@${t.domain}`;
  await send(T0 + 200, {
    from: "Billing <billing@shop.test>", to, subject: "Invoice 7", text: "Please find attached the invoice.",
    messageId: "<inv7@Shop.test>", attachments: [{ filename: "invoice.pdf", content: Buffer.from("%PDF-1.4 fake"), contentType: "application/pdf" }],
  });
  await send(T0 + 700, { from: "news@letters.test", to, subject: "News", html: "<h1>Weekly</h1><p>All the <b>news</b></p>", messageId: "<news-1@letters.test>" });
  await send(T0 + 5000, {
    from: `bob@${t.domain}`, to, cc: "carol@partner.test", subject: "Re: Invoice 7", text: "Paid.",
    messageId: "<re-1@reading.test>", inReplyTo: "<inv7@Shop.test>", references: ["<inv7@Shop.test>"],
  });
  await send(T0 + 10_000, { from: "friend@far.test", to, subject: "Lunch?", text: "x".repeat(300), messageId: "<lunch@far.test>" });
  for (const m of (await list(alice)).messages) ids[m.subject] = m.id;
});
afterAll(() => p.stop());

describe("list", () => {
  it("newest first with total, offset, limit (default 50) and hasMore", async () => {
    const page = await list(alice);
    expect(page).toMatchObject({ total: 4, offset: 0, limit: 50, hasMore: false });
    expect(page.messages.map((m: { subject: string }) => m.subject)).toEqual(["Lunch?", "Re: Invoice 7", "News", "Invoice 7"]);
    expect(page.messages[3]).toEqual({
      id: ids["Invoice 7"],
      subject: "Invoice 7",
      receivedAt: "2026-11-20T08:15:00.200Z",
      hasAttachment: true,
      rfcMessageId: "inv7@Shop.test",
      from: [{ email: "billing@shop.test", name: "Billing" }],
      preview: "Please find attached the invoice.",
      quarantined: false,
    });
    expect(page.messages[0].preview).toHaveLength(200);
  });

  it("pages with offset and limit", async () => {
    expect(await list(alice, "?limit=2")).toMatchObject({ total: 4, limit: 2, offset: 0, hasMore: true, messages: [{ subject: "Lunch?" }, { subject: "Re: Invoice 7" }] });
    expect(await list(alice, "?limit=2&offset=2")).toMatchObject({ total: 4, hasMore: false, messages: [{ subject: "News" }, { subject: "Invoice 7" }] });
    expect(await list(alice, "?offset=10")).toMatchObject({ total: 4, hasMore: false, messages: [] });
  });

  it("since is strictly later and drops a message received in the same second", async () => {
    // 08:15:00.500: Invoice 7 (.200) is earlier, News (.700) is later but in the same second.
    expect(await subjects("?since=2026-11-20T08:15:00.500Z")).toEqual(["Lunch?", "Re: Invoice 7"]);
    expect(await subjects("?since=2026-11-20T08:15:00Z")).toEqual(["Lunch?", "Re: Invoice 7"]);
    expect(await subjects("?since=2026-11-20T08:14:59.999Z")).toEqual(["Lunch?", "Re: Invoice 7", "News", "Invoice 7"]);
    expect(await subjects("?since=2026-11-20T08:15:05Z")).toEqual(["Lunch?"]);
    expect(await subjects("?since=2026-11-20T10:15:04%2B02:00")).toEqual(["Lunch?", "Re: Invoice 7"]);
  });

  it("before is strictly earlier, and combines with since", async () => {
    expect(await subjects("?before=2026-11-20T08:15:05Z")).toEqual(["News", "Invoice 7"]);
    expect(await subjects("?before=2026-11-20T08:15:05.001Z&since=2026-11-20T08:14:00Z")).toEqual(["Re: Invoice 7", "News", "Invoice 7"]);
  });

  it("hasAttachment true only with, false only without", async () => {
    expect(await subjects("?hasAttachment=true")).toEqual(["Invoice 7"]);
    expect(await subjects("?hasAttachment=false")).toEqual(["Lunch?", "Re: Invoice 7", "News"]);
  });

  it("with is an exact sender or recipient address; from and to are substrings, any case", async () => {
    expect(await subjects("?with=billing@shop.test")).toEqual(["Invoice 7"]);
    expect(await subjects("?with=Carol@Partner.test")).toEqual(["Re: Invoice 7"]);
    expect(await subjects("?with=billing@shop")).toEqual([]);
    expect(await subjects(`?with=alice@${t.domain}`)).toHaveLength(4);
    expect(await subjects("?from=SHOP")).toEqual(["Invoice 7"]);
    expect(await subjects("?from=.test")).toHaveLength(4);
    expect(await subjects("?to=carol")).toEqual(["Re: Invoice 7"]);
    expect(await subjects("?to=carol%20alice")).toEqual([]);
    expect(await list(alice, "?from=test&hasAttachment=false&limit=1")).toMatchObject({ total: 3, hasMore: true, messages: [{ subject: "Lunch?" }] });
  });

  it("limit is 1 to 500 (M1); bad filters are 400 and change nothing", async () => {
    expect((await list(alice, "?limit=500")).limit).toBe(500);
    for (const q of ["?limit=0", "?limit=501", "?offset=-1", "?since=yesterday", "?hasAttachment=maybe"]) {
      const res = await t.api("GET", `/v1/mailboxes/${alice}/messages${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe("invalid_request");
    }
  });
});

describe("get", () => {
  it("the whole message: Message-ID as written, references, recipients, text and headers in order", async () => {
    const res = await t.api("GET", `/v1/mailboxes/${alice}/messages/${ids["Re: Invoice 7"]}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: ids["Re: Invoice 7"],
      subject: "Re: Invoice 7",
      receivedAt: "2026-11-20T08:15:05.000Z",
      hasAttachment: false,
      rfcMessageId: "re-1@reading.test",
      messageId: "<re-1@reading.test>",
      inReplyTo: ["<inv7@Shop.test>"],
      references: ["<inv7@Shop.test>"],
      from: [{ email: `bob@${t.domain}` }],
      to: [{ email: `alice@${t.domain}` }],
      text: "Paid.\n",
      preview: "Paid.",
    });
    const names = res.body.headers.map((h: { name: string }) => h.name);
    // Ours on top: Received, then mailauth's verdicts (Received-SPF when the sender's domain has SPF).
    expect(names[0]).toBe("Received");
    expect(names.indexOf("Authentication-Results")).toBeLessThan(names.indexOf("From"));
    expect(names).toEqual(expect.arrayContaining(["From", "To", "Cc", "Subject", "Message-ID", "In-Reply-To", "References", "Date", "MIME-Version"]));
    expect(res.body.headers).toContainEqual({ name: "Subject", value: "Re: Invoice 7" });
  });

  it("text derived from the HTML of an HTML-only message", async () => {
    const res = await t.api("GET", `/v1/mailboxes/${alice}/messages/${ids.News}`);
    expect(res.body.text).toMatch(/WEEKLY\s+All the news/i);
  });

  it("ids are per mailbox: another mailbox's, another project's, a group's or a made-up id is 404", async () => {
    await send(T0 + 20_000, { from: "s@far.test", to: `bob@${t.domain}`, subject: "for bob", text: "b" });
    const bobs = (await list(bob)).messages;
    expect(bobs).toEqual([expect.objectContaining({ id: "1", subject: "for bob" })]);
    expect((await t.api("GET", `/v1/mailboxes/${alice}/messages/1`)).body.subject).toBe("Invoice 7");
    expect((await t.api("GET", `/v1/mailboxes/${bob}/messages/${ids.News}`)).status).toBe(404);
    for (const msgId of ["999", "0", "01", "abc"]) expect((await t.api("GET", `/v1/mailboxes/${alice}/messages/${msgId}`)).status, msgId).toBe(404);
    const foreign = await other.api("GET", `/v1/mailboxes/${alice}/messages/1`);
    expect(foreign.status).toBe(404);
    expect((await other.api("GET", `/v1/mailboxes/${alice}/messages`)).status).toBe(404);
    const group = await t.api("POST", "/v1/groups", { name: "team", domain: t.domain });
    expect((await t.api("GET", `/v1/mailboxes/${group.body.id}/messages`)).body.code).toBe("not_found");
  });
});

describe("by Message-ID", () => {
  const find = (query: string) => t.api("GET", `/v1/mailboxes/${alice}/messages/by-message-id?${query}`);

  it("finds through the index with or without angle brackets", async () => {
    for (const value of ["<news-1@letters.test>", "news-1@letters.test", "%20%3Cnews-1%40letters.test%3E"]) {
      const res = await find(`value=${value.startsWith("%") ? value : encodeURIComponent(value)}`);
      expect(res.status, value).toBe(200);
      expect(res.body).toEqual({ message: { id: ids.News, subject: "News", rfcMessageId: "news-1@letters.test" }, lookup: { source: "index", scanned: 1 } });
    }
  });

  it("falls back to a scan without case when the exact key is not there", async () => {
    const res = await find("value=INV7@shop.TEST");
    expect(res.status).toBe(200);
    // The scan walks newest first: Lunch?, Re: Invoice 7, News, Invoice 7.
    expect(res.body).toEqual({ message: { id: ids["Invoice 7"], subject: "Invoice 7", rfcMessageId: "inv7@Shop.test" }, lookup: { source: "scan", scanned: 4 } });
  });

  it("not found: not_found after the whole mailbox, with the count and date in the text", async () => {
    const res = await find("value=%3Cnope%40x.test%3E");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      error: "no message with Message-ID <nope@x.test> in this mailbox (scanned 4 messages back to 2026-11-20T08:15:00.200Z)",
      code: "not_found",
      lookup: { scanned: 4, reachedBack: "2026-11-20T08:15:00.200Z" },
    });
  });

  it("not found in a narrowed range: not_found_in_range, even when it exists outside it", async () => {
    const res = await find(`value=${encodeURIComponent("<inv7@Shop.test>")}&since=2026-11-20T08:15:00Z`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found_in_range");
    expect(res.body.lookup).toEqual({ scanned: 2, reachedBack: "2026-11-20T08:15:05.000Z" });
    expect(res.body.error).toContain("scanned 2 messages back to 2026-11-20T08:15:05.000Z");
    const empty = await find("value=x@y&before=2020-01-01T00:00:00Z");
    expect(empty.body).toMatchObject({ code: "not_found_in_range", lookup: { scanned: 0, reachedBack: null } });
    const inRange = await find(`value=${encodeURIComponent("<inv7@Shop.test>")}&before=2026-11-20T08:15:01Z`);
    expect(inRange.body.message.subject).toBe("Invoice 7");
  });

  it("an unknown mailbox is a plain 404 without lookup; value is required", async () => {
    const res = await other.api("GET", `/v1/mailboxes/${alice}/messages/by-message-id?value=a@b`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String), code: "not_found" });
    expect((await find("")).status).toBe(400);
  });
});
