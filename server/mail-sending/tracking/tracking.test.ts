// Tracking through the real path: a message sent through the API, relayed to a loopback MX found
// through our DNS, read back from the sink; its pixel and links fetched over HTTP; opens, clicks,
// the history, the links and the events checked through the API and the event outbox.
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../test/harness.ts";
import { hostMailZone } from "../../test/mail-zone.ts";
import { startSmtpSink, type SmtpSink } from "../../test/smtp-sink.ts";
import { MESSAGE_TOKEN_KEY_INFO, MessageTokens } from "../tokens/message-token.ts";

let p: TestPlatform;
let t: Tenant;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform({ relay: { name: "", port: sink.port, allowLoopback: true } }, { runWorker: false });
  t = await p.newTenant("tracked");
  await hostMailZone(p.services, "recipient.test");
});
afterAll(async () => {
  await p.stop();
  await sink.close();
});

const html = `<!DOCTYPE html><html><body><h1>Sale</h1><p><a href="https://shop.example/sale?a=1&amp;b=2">Sale</a> · <a href="mailto:help@shop.example">help</a> · <a href="https://shop.example/blog">Blog</a></p></body></html>`;
const text = "Sale: https://shop.example/sale?a=1&b=2";

async function sendTracked(extra: Record<string, unknown> = {}) {
  const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to: "reader@recipient.test", subject: "Sale", html, text, track: true, campaign: "autumn", ...extra });
  expect(res.status).toBe(200);
  const before = sink.messages.length;
  await p.worker.drain();
  expect(sink.messages.length).toBe(before + 1);
  const mail = await simpleParser(sink.messages.at(-1)!.raw);
  return { id: res.body.id as string, mail };
}

const eventsOf = (type: string) =>
  (p.db.prepare("SELECT payload FROM events WHERE project_id = ? AND type = ? ORDER BY rowid").all(t.projectId, type) as { payload: string }[]).map((r) => JSON.parse(r.payload));

describe("tracked message", () => {
  let id: string;
  let clickUrls: string[];
  let pixelUrl: string;

  beforeAll(async () => {
    const sent = await sendTracked();
    id = sent.id;
    const hrefs = [...(sent.mail.html as string).matchAll(/<a href="([^"]+)"/g)].map((m) => m[1]);
    clickUrls = hrefs.filter((h) => h.startsWith(`${p.url}/mail/c/`));
    pixelUrl = /<img[^>]* src="([^"]+)"/.exec(sent.mail.html as string)![1];
    expect(sent.mail.text?.trim()).toBe(text);
    expect(hrefs).toContain("mailto:help@shop.example");
  });

  it("has two click links and a pixel on the public URL; the text part is left alone", () => {
    expect(clickUrls).toHaveLength(2);
    expect(pixelUrl.startsWith(`${p.url}/mail/o/`)).toBe(true);
  });

  it("the pixel counts an open, adds history and emits mail.opened", async () => {
    const res = await fetch(pixelUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/gif");
    expect(res.headers.get("cache-control")).toBe("no-store, private");
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 6).toString("latin1")).toBe("GIF89a");
    const detail = await t.api("GET", `/v1/mail/messages/${id}`);
    expect(detail.body.message.opens).toBe(1);
    expect(detail.body.events.map((e: { event: string }) => e.event)).toContain("opened");
    expect(eventsOf("mail.opened").map((e) => e.data)).toEqual([{ messageId: id, to: "reader@recipient.test", campaign: "autumn" }]);
  });

  it("a click answers 302 to the original URL, counts per link, emits mail.clicked", async () => {
    const res = await fetch(clickUrls[1], { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://shop.example/blog");
    const first = await fetch(clickUrls[0], { redirect: "manual" });
    expect(first.headers.get("location")).toBe("https://shop.example/sale?a=1&b=2");
    await fetch(clickUrls[0], { redirect: "manual" });
    const detail = await t.api("GET", `/v1/mail/messages/${id}`);
    expect(detail.body.message.clicks).toBe(3);
    expect(detail.body.links).toEqual([
      { idx: 0, url: "https://shop.example/sale?a=1&b=2", clicks: 2 },
      { idx: 1, url: "https://shop.example/blog", clicks: 1 },
    ]);
    expect(eventsOf("mail.clicked").map((e) => [e.data.idx, e.data.url])).toEqual([
      [1, "https://shop.example/blog"],
      [0, "https://shop.example/sale?a=1&b=2"],
      [0, "https://shop.example/sale?a=1&b=2"],
    ]);
  });

  it("HEAD (a link scanner) answers the same without counting", async () => {
    const before = (await t.api("GET", `/v1/mail/messages/${id}`)).body.message;
    const click = await fetch(clickUrls[1], { method: "HEAD", redirect: "manual" });
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe("https://shop.example/blog");
    expect((await fetch(pixelUrl, { method: "HEAD" })).status).toBe(200);
    const after = (await t.api("GET", `/v1/mail/messages/${id}`)).body.message;
    expect([after.opens, after.clicks]).toEqual([before.opens, before.clicks]);
  });

  it("is no open redirect: a changed, forged or foreign token is 404 and counts nothing", async () => {
    const tokens = new MessageTokens(p.services.secrets.deriveKey(MESSAGE_TOKEN_KEY_INFO));
    const before = (await t.api("GET", `/v1/mail/messages/${id}`)).body.message;
    const token = clickUrls[0].slice(clickUrls[0].lastIndexOf("/") + 1);
    const [msg, , mac] = token.split(".");
    for (const bad of [
      `${msg}.1.${mac}`, // another link with the first link's MAC
      `${msg}.0.${mac.slice(0, -1)}`,
      tokens.sign("click", [id, "7"]), // properly signed, but the message has no link 7
      tokens.sign("open", [id]), // an open token used as a click
      tokens.sign("click", ["msg_000000000000", "0"]), // no such message
      "https%3A%2F%2Fevil.example",
    ]) {
      const res = await fetch(`${p.url}/mail/c/${bad}`, { redirect: "manual" });
      expect(res.status, bad).toBe(404);
      expect(res.headers.get("location")).toBeNull();
    }
    expect((await fetch(`${p.url}/mail/o/${tokens.sign("click", [id, "0"])}`)).status).toBe(404);
    const after = (await t.api("GET", `/v1/mail/messages/${id}`)).body.message;
    expect([after.opens, after.clicks]).toEqual([before.opens, before.clicks]);
  });
});

describe("untracked message", () => {
  it("keeps its HTML links and gets no pixel", async () => {
    const sent = await sendTracked({ track: false });
    expect(sent.mail.html).not.toContain("/mail/c/");
    expect(sent.mail.html).not.toContain("/mail/o/");
    expect(sent.mail.html).toContain('href="https://shop.example/blog"');
  });
});
