// The demo's mail host resolves through the platform's own DNS (issue 41 item 4, decision S18), so
// the receiving side's SPF check of the demo's own mail passes: the demo seeded on a real server
// (HTTP, the DNS server as the resolver, local delivery through the inbound path) on SQLite and on
// PostgreSQL, its first mail read back raw; and what is hosted, table-driven.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scopeCatalogue } from "../auth/scopes.ts";
import { backends } from "../test/backends.ts";
import { apiFor, startTestPlatform, type TestPlatform } from "../test/harness.ts";
import { hostMailHost, isReservedName } from "./mail-host.ts";
import { seedDemo } from "./seed-demo.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

describe.each(backends)("the demo's mail host on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    p = await startTestPlatform({ databaseUrl });
  });
  afterAll(async () => {
    await p?.stop();
    await database?.stop();
  });

  it("the demo's first mail to its own mailbox passes SPF, DKIM and DMARC at the receiving side", async () => {
    const demo = (await seedDemo(p.services, scopeCatalogue(p.openapi)))!;
    const api = apiFor(p.url, demo.key);
    // Through the resolver the receiving side asks: the platform's own DNS server.
    expect(await p.services.resolver.resolve4(p.services.config.mailHost)).toEqual(["127.0.0.1"]);

    const mailbox = await api("POST", "/v1/mailboxes", { name: "alice", domain: demo.mailDomain, password: "correct horse battery" });
    const sent = await api("POST", "/v1/mail/send", { from: `hello@${demo.mailDomain}`, to: `alice@${demo.mailDomain}`, subject: "My first mail", text: "Hello, Alice." });
    expect(sent.status).toBe(200);
    let status = "sent";
    // The worker delivers; asked a little apart, so the demo key's rate limit is not spent on it.
    while (status === "sent") {
      await new Promise((r) => setTimeout(r, 50));
      const res = await api("GET", `/v1/mail/messages/${sent.body.id}`);
      if (res.status !== 429) status = res.body.message.status;
    }
    expect(status).toBe("delivered");
    const [message] = (await api("GET", `/v1/mailboxes/${mailbox.body.id}/messages`)).body.messages;
    const raw = await (await fetch(`${p.url}/v1/mailboxes/${mailbox.body.id}/messages/${message.id}/raw`, { headers: { authorization: `Bearer ${demo.key}` } })).text();
    const results = /^Authentication-Results:.*(?:\r\n[ \t].*)*/im.exec(raw)?.[0];
    expect(results, raw.slice(0, 2000)).toMatch(/\bspf=pass\b/);
    expect(results).toMatch(/\bdkim=pass\b/);
    expect(results).toMatch(/\bdmarc=pass\b/);
  });

  it.each([
    ["a reserved name under no hosted zone", "mx.demo-host.test", true],
    ["the same name again (already hosted)", "mx.demo-host.test", false],
    ["a name inside a zone hosted here", "mail.inside-zone.test", false],
    ["a real name (its DNS is elsewhere)", "mx.example.com", false],
  ])("%s: hosted %s", async (_case, name, hosted) => {
    if (name.endsWith(".inside-zone.test") && !(await p.services.zones.getZone("inside-zone.test"))) await p.services.zones.createZone({ name: "inside-zone.test", projectId: null });
    expect(await hostMailHost(p.services.zones, name)).toBe(hosted);
  });
});

it.each([
  ["mx.platform.test", true],
  ["MX.Platform.Test.", true],
  ["mail.example", true],
  ["host.invalid", true],
  ["localhost", true],
  ["mx.example.com", false],
  ["test.example.org", false],
])("reserved name %s: %s", (name, reserved) => {
  expect(isReservedName(name)).toBe(reserved);
});
