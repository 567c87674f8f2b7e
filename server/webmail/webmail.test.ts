// Webmail login links through HTTP (single use, 60 s, atomic redemption) and the pages in
// headless Chromium: the cookie is HttpOnly and SameSite, logout ends the session.
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { launchChromium } from "../../test/support/chromium.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { sendTo } from "../test/smtp.ts";

let p: TestPlatform;
let t: Tenant;
let browser: Browser | undefined;

beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("webmail");
  await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" });
});
afterAll(async () => {
  await browser?.close();
  await p.stop();
});

const link = async (mailbox = `alice@${t.domain}`) => (await t.api("POST", "/v1/webmail/login-link", { mailbox })).body;
const open = (url: string) => fetch(url, { redirect: "manual" });

describe("login links", () => {
  it("answers url, email and expiresIn 60; the link signs in once", async () => {
    const l = await link();
    expect(l).toEqual({ url: expect.stringMatching(new RegExp(`^${p.url}/webmail/login\\?token=wl_`)), email: `alice@${t.domain}`, expiresIn: 60 });
    const first = await open(l.url);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/webmail");
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect((await open(l.url)).status).toBe(403);
  });

  it("of many concurrent opens of one link exactly one signs in", async () => {
    const l = await link();
    const results = await Promise.all(Array.from({ length: 20 }, () => open(l.url)));
    expect(results.filter((r) => r.status === 303)).toHaveLength(1);
    expect(results.filter((r) => r.status === 403)).toHaveLength(19);
  });

  it("only for a mailbox of the project", async () => {
    const res = await t.api("POST", "/v1/webmail/login-link", { mailbox: "alice@elsewhere.test" });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe("body.mailbox");
  });

  it("for a group, says that groups have no webmail instead of that the address is unknown", async () => {
    expect((await t.api("POST", "/v1/groups", { name: "team", domain: t.domain, members: [`alice@${t.domain}`] })).status).toBe(200);
    const res = await t.api("POST", "/v1/webmail/login-link", { mailbox: `team@${t.domain}` });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: "body.mailbox", message: expect.stringContaining("is a group: groups have no webmail") }]);
  });

  it("stores only the token's hash", async () => {
    const l = await link();
    const token = new URL(l.url).searchParams.get("token")!;
    expect(JSON.stringify(p.db.prepare("SELECT * FROM webmail_links").all())).not.toContain(token);
  });
});

// Chromium comes from scripts/install-system-deps.sh, which `npm test` runs first: no skip.
describe("webmail in Chromium", () => {
  beforeAll(async () => {
    browser = await launchChromium();
  });

  it("signs in through the link, shows the inbox, keeps the cookie from scripts, and logs out", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const l = await link();
    await page.goto(l.url);
    expect(new URL(page.url()).pathname).toBe("/webmail");
    expect(await page.textContent("#mailbox")).toBe(`alice@${t.domain}`);
    expect(await page.textContent("#empty")).toBe("No messages yet.");

    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: "platform_webmail", httpOnly: true, sameSite: "Lax", path: "/webmail" });
    expect(await page.evaluate(() => document.cookie)).toBe("");

    const missing = await page.goto(`${p.url}/webmail/messages/nope`);
    expect(missing!.status()).toBe(404);
    await page.goto(`${p.url}/webmail`);

    await page.click("#logout");
    await page.waitForURL(`${p.url}/webmail`);
    expect(await page.textContent("h1")).toBe("Not signed in");
    expect(await context.cookies()).toEqual([]);
    // The old session is gone on the server too, not only in this browser.
    const reuse = await fetch(`${p.url}/webmail`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    expect(reuse.status).toBe(401);
    await context.close();
  });

  it("a used link shows the expired page in the browser", async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    const l = await link();
    await open(l.url);
    const res = await page.goto(l.url);
    expect(res!.status()).toBe(403);
    expect(await page.textContent("h1")).toContain("no longer valid");
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it("shows the real inbox and messages; HTML is sanitized, no script runs, remote images wait for a click", async () => {
    // A loopback "remote" server counting image fetches, and anything a script might call.
    let fetches = 0;
    const remote = http.createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { "content-type": "image/gif" }).end(Buffer.from("R0lGODlhAQABAAAAACw=", "base64"));
    });
    await new Promise<void>((r) => remote.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    try {
      await sendTo(p.smtp!.port, { from: "Plain Sender <plain@outside.test>", to: `alice@${t.domain}`, subject: "Plain one", text: "Just text <b>not bold</b>" });
      await sendTo(p.smtp!.port, {
        from: "attacker@outside.test",
        to: `alice@${t.domain}`,
        subject: "Rich <one>",
        html: `<h2 id="greeting">Hello</h2><p>Visit <a href="https://example.org/x">us</a> or <a id="js" href="javascript:window.__pwned=1">this</a></p>
          <script>window.__pwned = 1; fetch("${origin}/script")</script>
          <img src="${origin}/pixel.gif" alt="logo" onerror="window.__pwned = 2">
          <div style="background:url(${origin}/css)" onclick="window.__pwned = 3">styled</div>
          <iframe src="${origin}/frame"></iframe><form action="${origin}/form"><input name="q"></form>`,
      });
      const context = await browser!.newContext();
      const page = await context.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (d) => void dialogs.push(d.message()));
      await page.goto((await link()).url);
      expect(await page.locator("tr.message td:nth-child(2)").allTextContents()).toEqual(["Rich <one>", "Plain one"]);
      expect(await page.textContent("tr.message td")).toBe("attacker@outside.test");

      await page.click("text=Plain one");
      expect(await page.textContent("#from")).toBe("Plain Sender <plain@outside.test>");
      expect(await page.textContent("#body")).toBe("Just text <b>not bold</b>\n");

      await page.goto(`${p.url}/webmail`);
      await page.click("text=Rich <one>");
      expect(await page.textContent("#subject")).toBe("Rich <one>");
      // Ids of the mail are dropped with the other attributes: they could shadow the page's own.
      expect(await page.textContent("#body h2")).toBe("Hello");
      expect(await page.getAttribute("#body a[href='https://example.org/x']", "rel")).toContain("noopener");
      expect(await page.locator("#body a", { hasText: "this" }).getAttribute("href")).toBeNull();
      expect(await page.locator("#body script, #body iframe, #body form, #body [style], #body [onclick], #body img").count()).toBe(0);
      expect(await page.textContent("#images-blocked")).toContain("Remote images are not shown");
      await page.click("#body div");
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(fetches).toBe(0);

      await page.click("#show-images");
      await page.waitForLoadState("load");
      expect(await page.locator("#body img").getAttribute("src")).toBe(`${origin}/pixel.gif`);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(fetches).toBe(1);
      expect(dialogs).toEqual([]);
      await context.close();
    } finally {
      await new Promise((r) => remote.close(r));
    }
  });
});
