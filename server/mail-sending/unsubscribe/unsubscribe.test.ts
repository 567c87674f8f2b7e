// One-click unsubscribe through the real path: the headers of a relayed message (DKIM-verified
// by mailauth against our DNS, both list headers under the signature), the page in headless
// Chromium, the POST a mailbox provider makes, and what the suppression then does to later sends
// per stream and scope.
import { dkimVerify } from "mailauth";
import { simpleParser } from "mailparser";
import type { Browser } from "playwright-core";
import { launchChromium } from "../../../test/support/chromium.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../test/harness.ts";
import { hostMailZone } from "../../test/mail-zone.ts";
import { startSmtpSink, type SmtpSink } from "../../test/smtp-sink.ts";

let p: TestPlatform;
let t: Tenant;
let sink: SmtpSink;
let browser: Browser;

beforeAll(async () => {
  sink = await startSmtpSink();
  p = await startTestPlatform({ relay: { name: "", port: sink.port, allowLoopback: true } }, { runWorker: false });
  t = await p.newTenant("unsub");
  await hostMailZone(p.services, "recipient.test");
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await p?.stop();
  await sink?.close();
});

async function send(to: string, fields: Record<string, unknown>) {
  const res = await t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to, subject: "Letter", text: "Hello", html: "<p>Hello</p>", ...fields });
  expect(res.status).toBe(200);
  return res.body as { id: string; status: string };
}

/** Sends with unsubscribe: true, relays, and returns the relayed raw message and its URL. */
async function sendWithUnsubscribe(to: string, fields: Record<string, unknown>) {
  const { id } = await send(to, { unsubscribe: true, ...fields });
  await p.worker.drain();
  const raw = sink.messages.at(-1)!.raw;
  const mail = await simpleParser(raw);
  // The header as written (nodemailer folds it), unfolded the way a provider reads it.
  const line = mail.headerLines.find((h) => h.key === "list-unsubscribe")!.line.replace(/\r?\n[ \t]+/g, " ").replace(/^List-Unsubscribe:\s*/i, "");
  return { id, raw, line, url: /^<(https?:\/\/[^>]+)>$/.exec(line)![1] };
}

const suppressionsOf = (address: string) =>
  p.db.prepare("SELECT kind, scope, reason FROM suppressions WHERE project_id = ? AND address = ? ORDER BY scope").all(t.projectId, address);

describe("the relayed message", () => {
  it("carries the RFC 8058 pair, both under a DKIM signature that verifies", async () => {
    const m = await sendWithUnsubscribe("headers@recipient.test", { stream: "marketing" });
    expect(m.url.startsWith(`${p.url}/mail/u/`)).toBe(true);
    expect(m.raw.toString("latin1")).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    const result = await dkimVerify(m.raw, { resolver: (name, rrtype) => p.services.resolver.resolve(name, rrtype) as Promise<string[]> });
    const sig = result.results.find((r) => r.signingDomain === t.domain)!;
    expect(sig.status.result).toBe("pass");
    const signed = sig.signingHeaders!.keys.toLowerCase().split(": ").join(":").split(":");
    expect(signed).toEqual(expect.arrayContaining(["list-unsubscribe", "list-unsubscribe-post"]));
  });

  it("a message without unsubscribe has neither header", async () => {
    await send("plain@recipient.test", {});
    await p.worker.drain();
    expect(sink.messages.at(-1)!.raw.toString("latin1")).not.toMatch(/^List-Unsubscribe/im);
  });
});

describe("the unsubscribe URL", () => {
  it("GET shows a confirmation and changes nothing; the button in Chromium unsubscribes for the scope", async () => {
    const m = await sendWithUnsubscribe("reader@recipient.test", { stream: "marketing", scope: "tenant-a" });
    const get = await fetch(m.url);
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(suppressionsOf("reader@recipient.test")).toEqual([]);

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(m.url);
    expect(await page.textContent("#to")).toBe("reader@recipient.test");
    expect(await page.textContent("#from")).toBe(`news@${t.domain}`);
    // A scanner that opens the page does not unsubscribe anyone.
    expect(suppressionsOf("reader@recipient.test")).toEqual([]);
    await page.click("#unsubscribe");
    await page.waitForSelector("#done");
    expect(await page.textContent("#done")).toBe("You are unsubscribed");
    await context.close();

    expect(suppressionsOf("reader@recipient.test")).toEqual([{ kind: "marketing", scope: "tenant-a", reason: "unsubscribed" }]);
    // Marketing for the same owner is suppressed; another owner and the transactional stream are not.
    expect((await send("reader@recipient.test", { stream: "marketing", scope: "tenant-a" })).status).toBe("suppressed");
    expect((await send("reader@recipient.test", { stream: "marketing", scope: "tenant-b" })).status).toBe("sent");
    expect((await send("reader@recipient.test", { stream: "transactional", scope: "tenant-a" })).status).toBe("sent");
  });

  it("a provider's one-click POST (urlencoded, then multipart) unsubscribes; repeating is harmless", async () => {
    const m = await sendWithUnsubscribe("whole@recipient.test", { stream: "marketing" });
    const post = await fetch(m.url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(post.status).toBe(200);
    const form = new FormData();
    form.set("List-Unsubscribe", "One-Click");
    expect((await fetch(m.url, { method: "POST", body: form })).status).toBe(200);
    expect(suppressionsOf("whole@recipient.test")).toEqual([{ kind: "marketing", scope: "", reason: "unsubscribed" }]);
    // An empty scope is the whole project: every owner's marketing stops, transactional goes on.
    expect((await send("whole@recipient.test", { stream: "marketing", scope: "tenant-z" })).status).toBe("suppressed");
    expect((await send("whole@recipient.test", { stream: "transactional" })).status).toBe("sent");
  });

  it("from a transactional message, the pages promise only what happens: marketing stops, transactional mail goes on", async () => {
    const m = await sendWithUnsubscribe("receipts@recipient.test", { stream: "transactional" });
    const confirm = await (await fetch(m.url)).text();
    expect(confirm).toContain("Stop marketing mail from");
    expect(confirm).toContain("This message was transactional mail");
    const post = await fetch(m.url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    const done = await post.text();
    expect(done).toContain("receipts@recipient.test will not get marketing mail from this sender again.");
    expect(done).toContain("Transactional mail from this sender, such as the message you unsubscribed from, still arrives.");
    expect(done).not.toContain("this kind of mail");
    // And that is what the suppression does.
    expect((await send("receipts@recipient.test", { stream: "transactional" })).status).toBe("sent");
    expect((await send("receipts@recipient.test", { stream: "marketing" })).status).toBe("suppressed");
  });

  it("refuses another body with 400 and a bad token with 404, changing nothing", async () => {
    const m = await sendWithUnsubscribe("careful@recipient.test", { stream: "marketing" });
    for (const [type, body] of [
      ["application/x-www-form-urlencoded", "List-Unsubscribe=Yes"],
      ["application/x-www-form-urlencoded", ""],
      ["text/plain", "List-Unsubscribe=One-Click"],
    ]) {
      const res = await fetch(m.url, { method: "POST", headers: { "content-type": type }, body });
      expect([type, body, res.status]).toEqual([type, body, 400]);
    }
    const token = m.url.slice(m.url.lastIndexOf("/") + 1);
    const forged = `${m.url.slice(0, m.url.lastIndexOf("/") + 1)}${token.slice(0, -1)}${token.endsWith("a") ? "b" : "a"}`;
    const res = await fetch(forged, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" });
    expect(res.status).toBe(404);
    expect((await fetch(forged)).status).toBe(404);
    expect(suppressionsOf("careful@recipient.test")).toEqual([]);
  });
});
