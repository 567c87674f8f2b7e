// Who may frame webmail (decision M11), in Chromium: the application a login link names shows the
// signed-in mailbox in its iframe; a page of any other origin on loopback (same site or not) gets
// the frame refused, also while the reader is signed in, and so does every page when the link
// named no origin. The API refuses what is no origin. On SQLite and on PostgreSQL.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../test/support/chromium.ts";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

/** A page on its own loopback port that frames `?src=` in an iframe: the application, or a stranger. */
async function framingSite(): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const src = new URL(req.url!, "http://x").searchParams.get("src") ?? "";
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><title>site</title><iframe id="mail" width="800" height="600" src="${src.replaceAll('"', "&quot;")}"></iframe>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** The iframe's document once loaded: its h1, or null when the browser refused to show the page. */
async function framed(page: Page, site: string, src: string): Promise<string | null> {
  const refusals: string[] = [];
  page.on("console", (m) => {
    if (/frame-ancestors|X-Frame-Options/i.test(m.text())) refusals.push(m.text());
  });
  await page.goto(`${site}/?src=${encodeURIComponent(src)}`);
  const frame = await (await page.waitForSelector("#mail")).contentFrame();
  await frame!.waitForLoadState("load");
  const h1 = await heading(frame!);
  // A refused frame shows the browser's error page, and the console says which header refused it.
  if (h1 === null) expect(refusals.join("\n")).toMatch(/frame-ancestors/);
  return h1;
}

async function heading(frame: Frame): Promise<string | null> {
  if (!frame.url().startsWith("http")) return null;
  return frame.evaluate(() => document.querySelector("h1")?.textContent ?? null).catch(() => null);
}

describe.each(backends)("framing webmail on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let t: Tenant;
  let browser: Browser;
  let app: { server: Server; port: number };
  let stranger: { server: Server; port: number };
  // The application on another site (localhost, the platform being 127.0.0.1); the stranger on
  // the platform's own site (another port of 127.0.0.1), whose frames carry SameSite=Lax cookies.
  const appOrigin = () => `http://localhost:${app.port}`;
  const strangerOrigin = () => `http://127.0.0.1:${stranger.port}`;
  const link = async (frameAncestors?: string[]) =>
    (await t.api("POST", "/v1/webmail/login-link", { mailbox: `alice@${t.domain}`, ...(frameAncestors ? { frameAncestors } : {}) })).body.url as string;

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    p = await startTestPlatform({ databaseUrl }, { runWorker: false });
    t = await p.newTenant(`frame-${backend}`);
    await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" });
    [app, stranger] = [await framingSite(), await framingSite()];
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    for (const s of [app, stranger]) s?.server.close();
    await p?.stop();
    await database?.stop();
  });

  it("the application a link names shows the signed-in inbox in its iframe", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    expect(await framed(page, appOrigin(), await link([appOrigin()]))).toBe("Inbox");
    // Logging out inside the frame removes the partitioned cookie too.
    const frame = (await (await page.waitForSelector("#mail")).contentFrame())!;
    // The browser follows the logout's redirect only after taking its Set-Cookie.
    const redirected = page.waitForRequest((r) => r.url() === `${p.url}/webmail` && r.method() === "GET");
    await frame.click("#logout");
    await redirected;
    expect(await context.cookies()).toEqual([]);
    await context.close();
  });

  it("another origin cannot frame a session whose link named the application", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // Signed in at the top level, as the reader would be in a tab.
    await page.goto(await link([appOrigin()]));
    expect(await page.textContent("h1")).toBe("Inbox");
    expect(await framed(page, strangerOrigin(), `${p.url}/webmail`)).toBeNull();
    await context.close();
  });

  it("no site can frame a session whose link named no origin, not even the application", async () => {
    for (const site of [appOrigin(), strangerOrigin()]) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(await link());
      expect(await page.textContent("h1")).toBe("Inbox");
      expect(await framed(page, site, `${p.url}/webmail`)).toBeNull();
      expect(await framed(page, site, await link())).toBeNull();
      await context.close();
    }
  });

  it("pages say so in their headers: the named origins, or none and DENY", async () => {
    const signedIn = async (url: string) => {
      const res = await fetch(url, { redirect: "manual" });
      return res.headers.get("set-cookie")!.split(";")[0];
    };
    const named = await fetch(`${p.url}/webmail`, { headers: { cookie: await signedIn(await link([appOrigin(), "https://app.example.test/"])) } });
    expect(named.headers.get("content-security-policy")).toContain(`frame-ancestors ${appOrigin()} https://app.example.test;`.slice(0, -1));
    expect(named.headers.get("x-frame-options")).toBeNull();
    const none = await fetch(`${p.url}/webmail`, { headers: { cookie: await signedIn(await link()) } });
    expect(none.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(none.headers.get("x-frame-options")).toBe("DENY");
    const anonymous = await fetch(`${p.url}/webmail`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("x-frame-options")).toBe("DENY");
  });

  // The contract's pattern refuses them (the request validator, before the handler), naming the
  // entry with what the contract says an entry is (decision M11; frame-ancestors.test.ts holds the
  // pattern and the handler's check equal).
  const contractSays =
    "is not valid: An origin as the browser's `location.origin` gives it (decision M11): lowercase `https://host[:port]`, the host a DNS name, " +
    "a dotted-decimal IPv4 address or `[::1]`; or `http://` on a loopback host (`localhost`, `127.x.x.x`, `[::1]`). A default port is dropped and " +
    "one trailing slash allowed; no path, query, user, wildcard or CSP keyword.";
  it.each([
    ["not a URL", "app.example.test"],
    ["http on a public host", "http://app.example.test"],
    ["a path", "https://app.example.test/mail"],
    ["a user", "https://u@app.example.test"],
    ["a wildcard", "https://*.example.test"],
    ["a script URL", "javascript:alert(1)"],
    ["another scheme", "ftp://app.example.test"],
    ["a CSP keyword", "'self'"],
    ["uppercase", "https://App.example.test"],
    ["a public IPv6 literal", "https://[2001:db8::1]"],
  ])("refuses %s with 400 naming the entry, and creates no link", async (_case, origin) => {
    const res = await t.api("POST", "/v1/webmail/login-link", { mailbox: `alice@${t.domain}`, frameAncestors: ["https://ok.example.test", origin] });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.details).toEqual([{ path: "body.frameAncestors.1", message: contractSays }]);
  });
});
