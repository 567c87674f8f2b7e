// Webmail links and sessions against a clock the test moves (the platform's injected clock), through
// HTTP on a real server: a link lives 60 s, a session 8 hours, both checked on each side of the
// boundary, and the exact cookie the browser is given.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hashToken } from "./tokens.ts";

const clock = manualClock(Date.UTC(2026, 5, 1, 12));
let p: TestPlatform;
let t: Tenant;

beforeAll(async () => {
  p = await startTestPlatform({}, { clock, runWorker: false });
  t = await p.newTenant("lifetimes");
  await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" });
});
afterAll(() => p.stop());

const link = async () => (await t.api("POST", "/v1/webmail/login-link", { mailbox: `alice@${t.domain}` })).body as { url: string; expiresIn: number };
const open = (url: string, cookie?: string) => fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
const signIn = async () => {
  const res = await open((await link()).url);
  expect(res.status).toBe(303);
  return res.headers.get("set-cookie")!;
};
const inbox = (setCookie: string) => open(`${p.url}/webmail`, setCookie.split(";")[0]);

describe("login link lifetime", () => {
  it("signs in 59.999 s after it was made", async () => {
    const l = await link();
    expect(l.expiresIn).toBe(60);
    clock.advance(59_999);
    expect((await open(l.url)).status).toBe(303);
  });

  it("is refused 60 s after it was made, with the expired page", async () => {
    const l = await link();
    clock.advance(60_000);
    const res = await open(l.url);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("This sign-in link is no longer valid");
  });

  it("signs in once: the second open of a live link is refused", async () => {
    const l = await link();
    expect((await open(l.url)).status).toBe(303);
    expect((await open(l.url)).status).toBe(403);
  });

  it("is refused without a token or with an unknown one", async () => {
    expect((await open(`${p.url}/webmail/login`)).status).toBe(403);
    expect((await open(`${p.url}/webmail/login?token=wl_unknown`)).status).toBe(403);
  });

  it("the token has its prefix and 256 random bits; the database holds only its SHA-256", async () => {
    const a = new URL((await link()).url).searchParams.get("token")!;
    const b = new URL((await link()).url).searchParams.get("token")!;
    expect(a).toMatch(/^wl_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    const row = p.db.prepare("SELECT token_hash, mailbox_id FROM webmail_links WHERE token_hash = ?").get(hashToken(a)) as { token_hash: string } | undefined;
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("session", () => {
  it("the cookie is exactly the session id, HttpOnly, SameSite=Lax, on /webmail, for 8 hours", async () => {
    const cookie = await signIn();
    expect(cookie).toMatch(/^platform_webmail=ws_[A-Za-z0-9_-]{43}; Path=\/webmail; HttpOnly; SameSite=Lax; Max-Age=28800$/);
  });

  it("is valid 1 ms before 8 hours and refused at 8 hours", async () => {
    const cookie = await signIn();
    clock.advance(8 * 3600_000 - 1);
    const before = await inbox(cookie);
    expect(before.status).toBe(200);
    expect(await before.text()).toContain(`alice@${t.domain}`);
    clock.advance(1);
    const after = await inbox(cookie);
    expect(after.status).toBe(401);
    expect(await after.text()).toContain("Not signed in");
  });

  it("a message page needs a live session too", async () => {
    const cookie = await signIn();
    expect((await open(`${p.url}/webmail/messages/nope`, cookie.split(";")[0])).status).toBe(404);
    clock.advance(8 * 3600_000);
    expect((await open(`${p.url}/webmail/messages/nope`, cookie.split(";")[0])).status).toBe(401);
  });

  it("an unknown session id is not signed in", async () => {
    expect((await inbox("platform_webmail=ws_unknown")).status).toBe(401);
    expect((await open(`${p.url}/webmail`)).status).toBe(401);
  });

  it("logout clears the cookie (Max-Age=0) and ends the session on the server", async () => {
    const cookie = await signIn();
    const res = await fetch(`${p.url}/webmail/logout`, { method: "POST", redirect: "manual", headers: { cookie: cookie.split(";")[0] } });
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toBe("platform_webmail=; Path=/webmail; HttpOnly; SameSite=Lax; Max-Age=0");
    expect((await inbox(cookie)).status).toBe(401);
  });

  it("a link's frame ancestors reach its session's pages, and a session of a link without them allows none (decision M11)", async () => {
    const named = await t.api("POST", "/v1/webmail/login-link", { mailbox: `alice@${t.domain}`, frameAncestors: ["https://app.example.test", "https://b.example.test"] });
    const framed = await open(named.body.url);
    expect(framed.headers.get("set-cookie")).toMatch(/; SameSite=None; Secure; Partitioned;/);
    const page = await inbox(framed.headers.get("set-cookie")!);
    expect(page.headers.get("content-security-policy")).toMatch(/; frame-ancestors https:\/\/app\.example\.test https:\/\/b\.example\.test$/);
    expect(page.headers.get("x-frame-options")).toBeNull();
    const plain = await inbox(await signIn());
    expect(plain.headers.get("content-security-policy")).toMatch(/; frame-ancestors 'none'$/);
    expect(plain.headers.get("x-frame-options")).toBe("DENY");
  });

  it("two sessions are apart: logging one out keeps the other", async () => {
    const first = await signIn();
    const second = await signIn();
    await fetch(`${p.url}/webmail/logout`, { method: "POST", redirect: "manual", headers: { cookie: first.split(";")[0] } });
    expect((await inbox(second)).status).toBe(200);
  });
});
