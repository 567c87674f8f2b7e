// Smarthost mode (S11, S12): every message goes to the configured host, which here is a loopback
// smtp-server requiring AUTH, not the recipient's MX. Its 250 is a relay accepting the message:
// the status stays `sent` and `relayMessageId` becomes the id in the reply; nothing is `delivered`.
import { once } from "node:events";
import { dkimVerify } from "mailauth";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { RETRY_DELAYS_MS } from "./retry-schedule.ts";

interface Received {
  user: string | undefined;
  rcptTo: string[];
  raw: Buffer;
}

const received: Received[] = [];
let acceptAuth = true;
let refuseRcpt: { code: number; text: string } | undefined;
let smarthost: SMTPServer;
let p: TestPlatform;
let t: Tenant;
const clock = manualClock();

beforeAll(async () => {
  smarthost = new SMTPServer({
    logger: false,
    // The relay keeps its session open for the next message; do not wait 30 s for it at close.
    closeTimeout: 500,
    // Plain loopback without TLS, so AUTH is allowed in the clear here (requireTls: false below).
    hideSTARTTLS: true,
    allowInsecureAuth: true,
    authMethods: ["PLAIN", "LOGIN"],
    onAuth(auth, _session, callback) {
      if (acceptAuth && auth.username === "relay-user" && auth.password === "s3cret") return callback(null, { user: auth.username });
      callback(new Error("Invalid username or password"));
    },
    onRcptTo(_address, _session, callback) {
      if (!refuseRcpt) return callback();
      callback(Object.assign(new Error(refuseRcpt.text), { responseCode: refuseRcpt.code }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push({ user: session.user as string | undefined, rcptTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks) });
        callback(null, `2.0.0 Ok: queued as SMART${received.length}X`);
      });
    },
  });
  smarthost.listen(0, "127.0.0.1");
  await once(smarthost.server, "listening");
  const port = (smarthost.server.address() as { port: number }).port;
  p = await startTestPlatform(
    // allowLoopback stays off: it is about recipient MX addresses; the smarthost is the operator's own.
    { relay: { name: "unused.relay.test", port: 25, allowLoopback: false, smarthost: { host: "127.0.0.1", port, secure: false, requireTls: false, user: "relay-user", pass: "s3cret" } } },
    { clock, runWorker: false },
  );
  t = await p.newTenant("smart");
});
afterAll(async () => {
  await p.stop();
  await new Promise<void>((resolve) => smarthost.close(() => resolve()));
});
beforeEach(() => {
  received.length = 0;
  acceptAuth = true;
  refuseRcpt = undefined;
});

const detail = async (id: string) => (await t.api("GET", `/v1/mail/messages/${id}`)).body;
const eventTypes = () => (p.db.prepare("SELECT type FROM events ORDER BY rowid").all() as { type: string }[]).map((r) => r.type);
const send = (to: string) => t.api("POST", "/v1/mail/send", { from: `news@${t.domain}`, to, subject: "Hi", text: "Hello" });

// First in the file: no authenticated session is cached yet.
it("a refused AUTH is retried, never a bounce; the next attempt with AUTH accepted hands it over", async () => {
  acceptAuth = false;
  const res = await send("dana@far.example");
  await p.worker.drain();
  expect(received).toHaveLength(0);
  expect((await detail(res.body.id)).message).toMatchObject({ status: "delayed" });
  expect(eventTypes()).not.toContain("mail.bounced");
  acceptAuth = true;
  clock.advance(RETRY_DELAYS_MS[0]);
  await p.worker.drain();
  expect(received).toHaveLength(1);
  expect((await detail(res.body.id)).message).toMatchObject({ status: "sent", relayMessageId: "SMART1X" });
});

it("hands the message over with AUTH, DKIM-signed; stays sent with the id of the 250 reply", async () => {
  // No zone for far.example exists anywhere here: only the smarthost can take it.
  const res = await send("bob@far.example");
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: "sent", relay: "127.0.0.1" });
  await p.worker.drain();
  expect(received).toHaveLength(1);
  expect(received[0].user).toBe("relay-user");
  expect(received[0].rcptTo).toEqual(["bob@far.example"]);
  const verdict = await dkimVerify(received[0].raw, { resolver: async (name: string) => p.services.resolver.resolveTxt(name) });
  expect(verdict.results).toHaveLength(1);
  expect(verdict.results[0].status.result).toBe("pass");
  expect(verdict.results[0].signingDomain).toBe(t.domain);
  expect(verdict.results[0].selector).toBe("platform");

  const d = await detail(res.body.id);
  expect(d.message).toMatchObject({ status: "sent", relay: "127.0.0.1", relayMessageId: "SMART1X" });
  expect(d.events.map((e: { event: string }) => e.event)).toEqual(["sent"]);
  expect(eventTypes()).not.toContain("mail.delivered");
});

it("a 5xx from the smarthost bounces the message and suppresses the address", async () => {
  refuseRcpt = { code: 550, text: "5.1.1 User unknown" };
  const res = await send("gone@far.example");
  await p.worker.drain();
  expect((await detail(res.body.id)).message).toMatchObject({ status: "bounced" });
  expect(eventTypes()).toContain("mail.bounced");
  refuseRcpt = undefined;
  const again = await send("gone@far.example");
  expect(again.body).toMatchObject({ status: "suppressed", relay: null, relayMessageId: null });
  await p.worker.drain();
  expect(received).toHaveLength(0);
});

it("a 4xx from the smarthost is delayed and retried; its later 250 makes it sent again", async () => {
  refuseRcpt = { code: 451, text: "4.3.0 Try again later" };
  const res = await send("carol@far.example");
  await p.worker.drain();
  expect((await detail(res.body.id)).message).toMatchObject({ status: "delayed" });
  refuseRcpt = undefined;
  clock.advance(RETRY_DELAYS_MS[0]);
  await p.worker.drain();
  expect(received).toHaveLength(1);
  expect(received[0].rcptTo).toEqual(["carol@far.example"]);
  const d = await detail(res.body.id);
  expect(d.message).toMatchObject({ status: "sent", relayMessageId: "SMART1X" });
  expect(eventTypes()).not.toContain("mail.delivered");
});

it("mail to a mailbox of this deployment and to a sandbox recipient is delivered here, not handed to the smarthost (H1, H4)", async () => {
  expect((await t.api("POST", "/v1/mailboxes", { name: "erin", domain: t.domain, password: "correct horse battery" })).status).toBe(200);
  const local = await send(`erin@${t.domain}`);
  const sandbox = await send("delivered@sandbox.platform.test");
  await p.worker.drain();
  expect(received).toHaveLength(0);
  expect((await detail(local.body.id)).message).toMatchObject({ status: "delivered" });
  expect((await detail(sandbox.body.id)).message).toMatchObject({ status: "delivered" });
});
