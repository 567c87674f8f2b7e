// One client cannot starve the listener: connections per client address are capped (the rest
// get 421 4.7.0 at once), a DATA phase and a whole session have deadlines a trickling client
// cannot push back, and a well-behaved sender from another address is served meanwhile. Real
// sockets on loopback; 127.0.0.2 and 127.0.0.3 act as two distinct clients. The limits are
// small in config so nothing waits minutes; every assertion is on an outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaults, type SmtpConfig } from "../config.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { SmtpClient as Client, smtpTransport } from "../test/smtp.ts";
import { clientKey } from "./client-limits.ts";

const SLOW = "127.0.0.2";
const GOOD = "127.0.0.3";

const startDialogue = (c: Client, rcpt: string) => c.write(`EHLO slow.test\r\nMAIL FROM:<s@slow.test>\r\nRCPT TO:<${rcpt}>\r\nDATA\r\n`);

/** Writes one byte of a message every `everyMs` until the server closes the connection. */
function trickle(c: Client, everyMs: number): () => void {
  c.write("Subject: slowloris\r\n\r\n");
  const timer = setInterval(() => c.write("x"), everyMs);
  c.socket.on("close", () => clearInterval(timer));
  return () => clearInterval(timer);
}

async function platformWith(smtp: Partial<SmtpConfig>): Promise<{ p: TestPlatform; t: Tenant; port: number; mailbox: string }> {
  const p = await startTestPlatform({ smtp: { ...defaults.smtp, port: 0, ...smtp } });
  const t = await p.newTenant("limits");
  const mailbox = (await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" })).body.id;
  return { p, t, port: p.smtp!.port, mailbox };
}

async function sendFrom(port: number, localAddress: string, to: string, subject: string) {
  const transport = smtpTransport(port, { localAddress });
  try {
    return await transport.sendMail({ from: "good@sender.test", to, subject, text: "well behaved" });
  } finally {
    transport.close();
  }
}

const subjects = async (t: Tenant, mailbox: string) =>
  ((await t.api("GET", `/v1/mailboxes/${mailbox}/messages?limit=500`)).body.messages as { subject: string }[]).map((m) => m.subject);

describe("connections per client address", () => {
  let env: Awaited<ReturnType<typeof platformWith>>;
  // Six slots in all, three per client: before the cap one address took all six.
  beforeAll(async () => {
    env = await platformWith({ maxConnections: 6, maxConnectionsPerClient: 3 });
  });
  afterAll(() => env.p.stop());

  it("a client holding its share gets 421 4.7.0 for more; another address is served meanwhile", async () => {
    const { t, port, mailbox } = env;
    const slow = Array.from({ length: 6 }, () => new Client(port, SLOW));
    const stops: (() => void)[] = [];
    for (const c of slow) {
      await c.until((x) => /^220 /m.test(x.replies) || /^421 /m.test(x.replies) || x.closed);
      if (/^220 /m.test(c.replies)) {
        startDialogue(c, `alice@${t.domain}`);
        await c.until((x) => /^354 /m.test(x.replies) || x.closed);
        stops.push(trickle(c, 1000));
      }
    }
    const held = slow.filter((c) => /^354 /m.test(c.replies));
    const refused = slow.filter((c) => /^421 4\.7\.0 too many connections from your address/m.test(c.replies));
    expect(held).toHaveLength(3);
    expect(refused).toHaveLength(3);
    for (const c of refused) await c.until((x) => x.closed);

    const info = await sendFrom(port, GOOD, `alice@${t.domain}`, "from a well-behaved sender");
    expect(info.response).toMatch(/^250 /);
    expect(await subjects(t, mailbox)).toContain("from a well-behaved sender");
    // The slow client's three were still held while the other address was served.
    expect(held.every((c) => !c.closed)).toBe(true);

    stops.forEach((stop) => stop());
    for (const c of held) c.socket.destroy();
    // Its connections gone, the slow address has its share again.
    await expect.poll(async () => (await sendFrom(port, SLOW, `alice@${t.domain}`, "slow address again").catch((e: Error) => e)).toString()).not.toMatch(/421/);
    expect(await subjects(t, mailbox)).not.toContain("slowloris");
  });
});

describe("deadlines a trickling client cannot push back", () => {
  let env: Awaited<ReturnType<typeof platformWith>>;
  // Each byte comes sooner than the idle timeout, so only the deadlines can end these sessions.
  beforeAll(async () => {
    env = await platformWith({ idleTimeoutMs: 2000, dataTimeoutMs: 1500, sessionTimeoutMs: 3000 });
  });
  afterAll(() => env.p.stop());

  it("a DATA phase trickling a byte at a time is cut with 421 4.4.2 and stores nothing, while another sender is served", async () => {
    const { t, port, mailbox } = env;
    const slow = Array.from({ length: 3 }, () => new Client(port, SLOW));
    for (const c of slow) {
      await c.until((x) => /^220 /m.test(x.replies));
      startDialogue(c, `alice@${t.domain}`);
      await c.until((x) => /^354 /m.test(x.replies));
      trickle(c, 200);
    }
    const info = await sendFrom(port, GOOD, `alice@${t.domain}`, "served beside the slowloris");
    expect(info.response).toMatch(/^250 /);
    for (const c of slow) {
      await c.until((x) => x.closed);
      expect(c.replies).toMatch(/^421 4\.4\.2 message not received in time, nothing was stored/m);
    }
    const stored = await subjects(t, mailbox);
    expect(stored).toContain("served beside the slowloris");
    expect(stored).not.toContain("slowloris");
  });

  it("a session kept busy with NOOPs is cut at the session deadline with 421 4.4.2", async () => {
    const c = new Client(env.port, SLOW);
    await c.until((x) => /^220 /m.test(x.replies));
    c.write("EHLO busy.test\r\n");
    const timer = setInterval(() => c.write("NOOP\r\n"), 200);
    try {
      await c.until((x) => x.closed);
    } finally {
      clearInterval(timer);
    }
    expect(c.replies).toMatch(/^250 /m);
    expect(c.replies).toMatch(/^421 4\.4\.2 session time limit reached/m);
  });
});

describe("clientKey: whose share a connection counts against", () => {
  it.each([
    ["192.0.2.7", "192.0.2.7"],
    ["::ffff:192.0.2.7", "192.0.2.7"],
    ["2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:bbbb:cccc:dddd:eeee", "2001:db8:1:2::/64"],
    ["2001:db8:1:3::1", "2001:db8:1:3::/64"],
  ])("%s counts as %s", (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});
