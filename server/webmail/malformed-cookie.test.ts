// A malformed session cookie is "not signed in" on every webmail page (issue 28 item 10): the
// cookie's value is percent-decoded, and a value that does not decode (`%`, a cut escape, bytes
// that are no UTF-8) used to throw out of the handler as a 500 with a stack in the log. Real
// server over HTTP; a genuine session beside each broken cookie must still work.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
let t: Tenant;
let session: string;
let messageId: string;

beforeAll(async () => {
  p = await startTestPlatform({}, { runWorker: false });
  t = await p.newTenant("cookies");
  await t.api("POST", "/v1/mailboxes", {
    name: "alice",
    domain: t.domain,
    password: "correct horse",
  });
  const link = (await t.api("POST", "/v1/webmail/login-link", { mailbox: `alice@${t.domain}` }))
    .body as { url: string };
  const login = await fetch(link.url, { redirect: "manual" });
  session = login.headers.get("set-cookie")!.split(";")[0];
  messageId = "msg_000000000000";
});
afterAll(() => p?.stop());

const malformed = [
  "platform_webmail=%",
  "platform_webmail=%zz",
  "platform_webmail=%E0%A4%A",
  "platform_webmail=%C3%28",
  "platform_webmail=%ff%fe",
  "platform_webmail=ws_%",
  'platform_webmail="%"',
  "other=1; platform_webmail=%; third=%",
  "platform_webmail=%%%%%%%%",
  "platform_webmail",
  "platform_webmail=",
  "=%; platform_webmail=%2",
];

const pages: [string, string, number][] = [
  ["GET", "/webmail", 401],
  ["GET", "/webmail/messages/msg_000000000000", 401],
  ["GET", "/webmail/messages/msg_000000000000?images=1", 401],
  // Logout with no session to end answers as it does without a cookie: back to the inbox.
  ["POST", "/webmail/logout", 303],
  // The login page reads no cookie; a broken one beside a bad link is still the expired page.
  ["GET", "/webmail/login?token=wl_unknown", 403],
];

describe("a malformed platform_webmail cookie is not signed in", () => {
  it.each(
    pages.flatMap(([method, url, status]) =>
      malformed.map((cookie) => [method, url, status, cookie] as const),
    ),
  )("%s %s answers %i with cookie %s", async (method, url, status, cookie) => {
    const res = await fetch(p.url + url, {
      method,
      redirect: "manual",
      headers: {
        cookie,
        ...(method === "POST" ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: method === "POST" ? "" : undefined,
    });
    expect(res.status).toBe(status);
    const body = await res.text();
    if (status === 401) expect(body).toContain("Not signed in");
    if (status === 303) expect(res.headers.get("location")).toBe("/webmail");
  });

  it("the genuine session still signs in, and a broken cookie beside it changes nothing", async () => {
    for (const cookie of [session, `platform_webmail=%; ${session}`, `${session}; other=%`]) {
      const res = await fetch(`${p.url}/webmail`, { headers: { cookie } });
      expect(res.status, cookie).toBe(200);
      expect(await res.text()).toContain(`alice@${t.domain}`);
    }
    const missing = await fetch(`${p.url}/webmail/messages/${messageId}`, {
      headers: { cookie: session },
    });
    expect(missing.status).toBe(404);
  });
});
