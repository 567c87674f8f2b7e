// A domain that changes hands leaves nothing behind (issue 41 item 3, decision O8), through the
// real server: HTTP, SMTP on a real socket, and verification through the server's own DNS server
// as the resolver ("the world's DNS" of the name is a zone no project holds, where its registrant
// publishes a project's token, as in ownership.test.ts). Project A verifies a name and makes
// mailboxes, a shared mailbox and groups on it; A's proof is withdrawn (`lost`); project C proves
// control (`verified`) and A's claim ends. From then on A's addresses on the name receive nothing,
// sign nobody in and are C's to create; A still reads its stored mail through the API. On SQLite
// and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateRecord } from "../dns/validate-record.ts";
import { manualClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { rawSmtp, sendTo } from "../test/smtp.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

const PASSWORD = "long-enough-1";

describe.each(backends)("a mail domain that changes hands, on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let a: Tenant;
  let c: Tenant;
  const clock = manualClock();

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    p = await startTestPlatform({ databaseUrl }, { clock, runWorker: false });
    a = await p.newTenant(`hand-a-${backend}`);
    c = await p.newTenant(`hand-c-${backend}`);
  });
  afterAll(async () => {
    await p?.stop();
    await database?.stop();
  });

  async function publishTxt(zone: string, data: string): Promise<string> {
    const checked = validateRecord({ type: "TXT", name: "@", data }, zone);
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    return (await p.services.zones.insertRecord(zone, checked.record)).id;
  }
  const verificationOf = (body: { records: { purpose: string; data: string }[] }) => body.records.find((r) => r.purpose === "verification")!.data;
  const status = async (t: Tenant, name: string) => (await t.api("GET", `/v1/maildomains/${name}`)).body.verification.status;
  const rcpt = (to: string) => rawSmtp(p.smtp!.port, ["EHLO client.test\r\n", "MAIL FROM:<someone@elsewhere.test>\r\n", `RCPT TO:<${to}>\r\n`, "QUIT\r\n"]);
  const mailTo = (to: string, subject: string) => sendTo(p.smtp!.port, { from: "someone@elsewhere.test", to, subject, text: `${subject}.` });
  const subjects = async (t: Tenant, mailbox: string) => (await t.api("GET", `/v1/mailboxes/${mailbox}/messages`)).body.messages.map((m: { subject: string }) => m.subject);
  const mailboxes = async (t: Tenant) => (await t.api("GET", "/v1/mailboxes")).body.mailboxes as { id: string; email: string; type: string; releasedAt?: string }[];
  async function create(t: Tenant, name: string, domain: string) {
    return t.api("POST", "/v1/mailboxes", { name, domain, password: PASSWORD });
  }
  /** Signs in with a link; answers the session cookie. */
  async function signIn(url: string): Promise<string> {
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(303);
    return res.headers.get("set-cookie")!.split(";")[0];
  }
  const inbox = (cookie: string) => fetch(`${p.url}/webmail`, { headers: { cookie } });

  /** A verifies `name` by its token; answers A's token record id and C's pending claim. */
  async function aOwns(name: string) {
    await p.services.zones.createZone({ name, projectId: null });
    const mine = await a.api("POST", "/v1/maildomains", { name });
    const token = await publishTxt(name, verificationOf(mine.body));
    expect(await status(a, name)).toBe("verified");
    return token;
  }
  /** A's proof is withdrawn (A's check finds it `lost`), then C publishes its own and proves control. */
  async function cTakesOver(name: string, aToken: string): Promise<void> {
    const theirs = await c.api("POST", "/v1/maildomains", { name });
    expect(theirs.body.verification.status).toBe("pending");
    await p.services.zones.deleteRecord(name, aToken);
    expect(await status(a, name)).toBe("lost");
    await publishTxt(name, verificationOf(theirs.body));
    expect(await status(c, name)).toBe("verified");
    expect(await status(a, name)).toBe("ended");
  }

  it("the old holder's mailboxes, shared mailboxes and groups stop; their addresses are the new owner's; the old holder still reads its stored mail", async () => {
    const name = "own.example";
    const aToken = await aOwns(name);
    const ceo = (await create(a, "ceo", name)).body.id;
    const sales = (await create(a, "sales", name)).body.id;
    expect((await a.api("POST", `/v1/mailboxes/${sales}/shared`, { shared: true })).status).toBe(200);
    const all = await a.api("POST", "/v1/groups", { name: "all", domain: name });
    expect(all.status).toBe(200);
    expect((await a.api("POST", `/v1/groups/${all.body.id}/members`, { mailbox: `ceo@${name}` })).status).toBe(200);
    // A group on A's other domain with ceo@ as a member, and one member that stays A's.
    const ops = (await create(a, "ops", a.domain)).body.id;
    const team = await a.api("POST", "/v1/groups", { name: "team", domain: a.domain });
    for (const member of [`ceo@${name}`, `ops@${a.domain}`]) expect((await a.api("POST", `/v1/groups/${team.body.id}/members`, { mailbox: member })).status).toBe(200);

    await mailTo(`ceo@${name}`, "Before the handover");
    await mailTo(`all@${name}`, "To all before");
    expect(await subjects(a, ceo)).toEqual(["To all before", "Before the handover"]);
    const session = await signIn((await a.api("POST", "/v1/webmail/login-link", { mailbox: `ceo@${name}` })).body.url);
    expect((await inbox(session)).status).toBe(200);
    const unused = (await a.api("POST", "/v1/webmail/login-link", { mailbox: `sales@${name}` })).body.url;

    await cTakesOver(name, aToken);

    // A: the mailboxes are listed as released, the group on the name is gone; stored mail stays readable.
    const listed = await mailboxes(a);
    expect(listed.filter((m) => m.email.endsWith(`@${name}`))).toEqual([
      { id: ceo, email: `ceo@${name}`, type: "personal", usedBytes: expect.any(Number), releasedAt: expect.any(String) },
      { id: sales, email: `sales@${name}`, type: "shared", usedBytes: 0, releasedAt: expect.any(String) },
    ]);
    expect(listed.find((m) => m.id === ops)).not.toHaveProperty("releasedAt");
    expect((await a.api("GET", "/v1/groups")).body.groups).toEqual([{ id: team.body.id, email: `team@${a.domain}`, membersCount: 1 }]);
    expect((await a.api("GET", `/v1/groups/${team.body.id}/members`)).body.members).toEqual([{ id: ops, email: `ops@${a.domain}` }]);
    expect(await subjects(a, ceo)).toEqual(["To all before", "Before the handover"]);

    // No login links, no signed-in session, no link made before.
    for (const mailbox of [`ceo@${name}`, `sales@${name}`]) {
      const link = await a.api("POST", "/v1/webmail/login-link", { mailbox });
      expect(link.status).toBe(409);
      expect(link.body).toMatchObject({ code: "not_ready", details: [{ path: "body.mailbox" }] });
      expect(link.body.error).toContain(`${mailbox} was released`);
    }
    expect((await inbox(session)).status).toBe(401);
    expect((await fetch(unused, { redirect: "manual" })).status).toBe(403);

    // No sending as them, nothing new on the name, and a released mailbox joins no group.
    const sent = await a.api("POST", "/v1/mail/send", { from: `ceo@${name}`, to: `ops@${a.domain}`, subject: "x", text: "x" });
    expect(sent.status).toBe(409);
    expect(sent.body.code).toBe("not_ready");
    expect((await create(a, "new", name)).status).toBe(409);
    const join = await a.api("POST", `/v1/groups/${team.body.id}/members`, { mailbox: `sales@${name}` });
    expect(join.status).toBe(409);
    expect(join.body.error).toContain("was released");

    // Mail to A's old addresses: the name is C's, which has no such mailbox yet.
    for (const address of [`ceo@${name}`, `sales@${name}`, `all@${name}`]) expect(await rcpt(address)).toMatch(/^550 5\.1\.1 /m);
    // A's group on its own domain still reaches its member that A holds, never the released one.
    await mailTo(`team@${a.domain}`, "Team mail");
    expect(await subjects(a, ops)).toEqual(["Team mail"]);
    expect(await subjects(a, ceo)).toEqual(["To all before", "Before the handover"]);

    // C creates the same addresses, and mail to them is C's.
    const cCeo = await create(c, "ceo", name);
    expect(cCeo.status).toBe(200);
    expect((await create(c, "postmaster", name)).status).toBe(200);
    expect((await create(c, "sales", name)).status).toBe(200);
    expect((await c.api("POST", "/v1/groups", { name: "all", domain: name })).status).toBe(200);
    expect(cCeo.body.id).not.toBe(ceo);
    await mailTo(`ceo@${name}`, "After the handover");
    expect(await subjects(c, cCeo.body.id)).toEqual(["After the handover"]);
    expect(await subjects(a, ceo)).toEqual(["To all before", "Before the handover"]);
    expect((await c.api("POST", "/v1/webmail/login-link", { mailbox: `ceo@${name}` })).status).toBe(200);
    // A's released mailbox is not C's to read, and C's list has only its own.
    expect((await c.api("GET", `/v1/mailboxes/${ceo}/messages`)).status).toBe(404);
    expect((await mailboxes(c)).filter((m) => m.email.endsWith(`@${name}`)).every((m) => m.releasedAt === undefined)).toBe(true);

    // A deletes its released mailbox when done with its mail.
    expect((await a.api("DELETE", `/v1/mailboxes/${ceo}`)).status).toBe(200);
    expect((await a.api("GET", `/v1/mailboxes/${ceo}/messages`)).status).toBe(404);
  });

  it("an address is held once under concurrency: the new owner's parallel creates of one address make one mailbox", async () => {
    const name = "race.example";
    const aToken = await aOwns(name);
    expect((await create(a, "ceo", name)).status).toBe(200);
    await cTakesOver(name, aToken);
    const answers = await Promise.all(Array.from({ length: 12 }, () => create(c, "ceo", name)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(11).fill(409)]);
    expect((await mailboxes(c)).filter((m) => m.email === `ceo@${name}`)).toHaveLength(1);
  });

  it("creates racing the claim's end leave no mailbox of the old holder holding an address on the name", async () => {
    const name = "racing-end.example";
    const aToken = await aOwns(name);
    const theirs = await c.api("POST", "/v1/maildomains", { name });
    await p.services.zones.deleteRecord(name, aToken);
    await publishTxt(name, verificationOf(theirs.body));
    // C's read finds A's proof gone and takes the name while A keeps creating.
    const [creates, takeover] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, (_, i) => create(a, `box${i}`, name))),
      c.api("GET", `/v1/maildomains/${name}`),
    ]);
    expect(takeover.body.verification.status).toBe("verified");
    for (const r of creates) expect([200, 409]).toContain(r.status);
    // Whatever A made before the end was released by it; nothing was made after.
    const onName = (await mailboxes(a)).filter((m) => m.email.endsWith(`@${name}`));
    expect(onName).toHaveLength(creates.filter((r) => r.status === 200).length);
    expect(onName.every((m) => m.releasedAt !== undefined)).toBe(true);
    for (let i = 0; i < 10; i++) expect((await create(c, `box${i}`, name)).status).toBe(200);
  });
});
