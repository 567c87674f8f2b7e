// Attachments of received mail round-trip byte for byte (issue 27 item 4, decision M9): sent by a
// real SMTP client to the listener, listed in the message detail, downloaded one by one and as the
// whole raw message, each as a download that no browser renders, and only by the project.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { simpleParser } from "mailparser";
import { createPlatformClient } from "../../generated/client/index.ts";
import { launchChromium } from "../../test/support/chromium.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { sendTo } from "../test/smtp.ts";

let p: TestPlatform;
let t: Tenant;
let other: Tenant;
let mailbox: string;
const pdf = randomBytes(300_000);
const html = Buffer.from(
  '<html><script>alert(document.cookie)</script><a href="x">click</a></html>',
);
const logo = randomBytes(2_000);
const names = { pdf: 'Счёт №7 "final".pdf', html: "page.html" };

beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("attach");
  other = await p.newTenant("attach-other");
  mailbox = (
    await t.api("POST", "/v1/mailboxes", {
      name: "alice",
      domain: t.domain,
      password: "correct horse",
    })
  ).body.id;
  await sendTo(p.smtp!.port, {
    from: "billing@shop.test",
    to: `alice@${t.domain}`,
    subject: "Files",
    text: "See attached.",
    html: '<p>Logo: <img src="cid:logo@shop.test"></p>',
    attachments: [
      { filename: names.pdf, content: pdf, contentType: "application/pdf" },
      { filename: names.html, content: html, contentType: "text/html" },
      { filename: false, content: Buffer.from("no name given"), contentType: "text/plain" },
      { filename: "logo.png", content: logo, contentType: "image/png", cid: "logo@shop.test" },
    ],
  });
  await sendTo(p.smtp!.port, {
    from: "plain@shop.test",
    to: `alice@${t.domain}`,
    subject: "Plain",
    text: "No files.",
  });
});
afterAll(() => p.stop());

const get = (url: string, key = t.key) =>
  fetch(`${p.url}${url}`, { headers: { authorization: `Bearer ${key}` } });

describe("the message detail", () => {
  it("lists each attachment with its file name, type, decoded size and whether the HTML shows it", async () => {
    const res = await t.api("GET", `/v1/mailboxes/${mailbox}/messages/1`);
    expect(res.status).toBe(200);
    expect(res.body.hasAttachment).toBe(true);
    // In the order of the MIME parts: the logo sits in the multipart/related beside the HTML body.
    expect(res.body.attachments).toEqual([
      { id: "1", filename: "logo.png", contentType: "image/png", size: logo.length, inline: true },
      {
        id: "2",
        filename: names.pdf,
        contentType: "application/pdf",
        size: pdf.length,
        inline: false,
      },
      { id: "3", filename: names.html, contentType: "text/html", size: html.length, inline: false },
      { id: "4", filename: "attachment-4", contentType: "text/plain", size: 13, inline: false },
    ]);
  });

  it("is an empty list for a message without attachments", async () => {
    expect((await t.api("GET", `/v1/mailboxes/${mailbox}/messages/2`)).body.attachments).toEqual(
      [],
    );
  });
});

describe("downloads", () => {
  it("an attachment byte for byte, as a download with both forms of its name, never rendered", async () => {
    const res = await get(`/v1/mailboxes/${mailbox}/messages/1/attachments/2`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const disposition = res.headers.get("content-disposition")!;
    expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
    expect(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(disposition)![1])).toBe(names.pdf);
    expect(res.headers.get("ratelimit-limit")).toBe("120");
  });

  it("an HTML attachment is served as bytes to save, not as a page of this origin", async () => {
    const res = await get(`/v1/mailboxes/${mailbox}/messages/1/attachments/3`);
    expect(Buffer.from(await res.arrayBuffer()).equals(html)).toBe(true);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
  });

  it("the raw message as received, with the trace headers this server added", async () => {
    const res = await get(`/v1/mailboxes/${mailbox}/messages/1/raw`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("message/rfc822");
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="1.eml"; filename*=UTF-8''1.eml`,
    );
    const raw = Buffer.from(await res.arrayBuffer());
    expect(raw.toString("latin1")).toMatch(/^Received: /);
    const parsed = await simpleParser(raw);
    expect(parsed.subject).toBe("Files");
    expect(parsed.attachments.map((a) => a.content.length)).toEqual([
      logo.length,
      pdf.length,
      html.length,
      13,
    ]);
    expect(parsed.attachments[1].content.equals(pdf)).toBe(true);
  });

  it("the typed client downloads both as bytes", async () => {
    const client = createPlatformClient({ baseUrl: p.url, apiKey: t.key, maxRetries: 0 });
    const path = { id: mailbox, msgId: "1" };
    const file = await client.GET("/v1/mailboxes/{id}/messages/{msgId}/attachments/{attachmentId}", { params: { path: { ...path, attachmentId: "2" } }, parseAs: "arrayBuffer" });
    expect(file.response.status).toBe(200);
    expect(Buffer.from(file.data as ArrayBuffer).equals(pdf)).toBe(true);
    const raw = await client.GET("/v1/mailboxes/{id}/messages/{msgId}/raw", { params: { path }, parseAs: "text" });
    expect(raw.data).toMatch(/^Received: /);
  });

  it("404 for an attachment or message that does not exist, and for another project", async () => {
    for (const url of [
      `/v1/mailboxes/${mailbox}/messages/1/attachments/5`,
      `/v1/mailboxes/${mailbox}/messages/1/attachments/0`,
      `/v1/mailboxes/${mailbox}/messages/2/attachments/1`,
      `/v1/mailboxes/${mailbox}/messages/9/raw`,
    ]) {
      const res = await get(url);
      expect([url, res.status]).toEqual([url, 404]);
      expect(await res.json()).toMatchObject({ code: "not_found" });
    }
    for (const url of [
      `/v1/mailboxes/${mailbox}/messages/1/attachments/1`,
      `/v1/mailboxes/${mailbox}/messages/1/raw`,
    ]) {
      const res = await get(url, other.key);
      expect([url, res.status]).toEqual([url, 404]);
    }
  });
});

describe("webmail", () => {
  it("lists the attachments and downloads them byte for byte in Chromium, HTML as a file", async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ acceptDownloads: true });
      const page = await context.newPage();
      const link = (await t.api("POST", "/v1/webmail/login-link", { mailbox: `alice@${t.domain}` }))
        .body.url;
      await page.goto(link);
      await page.goto(`${p.url}/webmail/messages/1`);
      const listed = await page.$$eval("#attachments .attachment a", (as) =>
        as.map((a) => a.textContent),
      );
      expect(listed).toEqual(["logo.png", names.pdf, names.html, "attachment-4"]);
      for (const [label, bytes] of [
        [names.pdf, pdf],
        [names.html, html],
      ] as const) {
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.click(`#attachments a:text-is(${JSON.stringify(label)})`),
        ]);
        expect(download.suggestedFilename()).toBe(label.replace(/"/g, "_"));
        expect(readFileSync((await download.path())!).equals(bytes)).toBe(true);
      }
      // The HTML file was saved, not opened: the page is still the message.
      expect(page.url()).toBe(`${p.url}/webmail/messages/1`);
      const [eml] = await Promise.all([page.waitForEvent("download"), page.click("#raw")]);
      expect((await simpleParser(readFileSync((await eml.path())!))).subject).toBe("Files");
      // Without the session, nothing.
      expect((await fetch(`${p.url}/webmail/messages/1/attachments/2`)).status).toBe(401);
      await context.close();
    } finally {
      await browser.close();
    }
  });
});
