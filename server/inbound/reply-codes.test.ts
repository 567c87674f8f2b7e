// Every refusal of the listener in its right class (RFC 5321 §4.2.1): 5xx for what will be
// refused the same way on every retry, so the sender bounces it now; 4xx only for what can
// succeed later. A permanent limit answered 4xx makes senders retry for days. The table of
// these replies is in server/inbound/README.md; DMARC's is in dmarc-policy.test.ts, the
// per-client and time limits' in client-limits.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { rawSmtp, SmtpClient } from "../test/smtp.ts";

let p: TestPlatform;
let t: Tenant;
let port: number;

beforeAll(async () => {
  p = await startTestPlatform();
  port = p.smtp!.port;
  t = await p.newTenant("replies");
  await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" });
});
afterAll(() => p.stop());

const stored = () => (p.db.prepare("SELECT COUNT(*) AS n FROM message_contents").get() as { n: number }).n;
/** One transaction to alice with `data` as the message, then a small one on the same connection. */
const twoMessages = (data: string) => [
  "EHLO c.test\r\n", "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<alice@${t.domain}>\r\n`, "DATA\r\n", data + "\r\n.\r\n",
  "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<alice@${t.domain}>\r\n`, "DATA\r\n", "Subject: after\r\n\r\nok\r\n.\r\n", "QUIT\r\n",
];
/** The reply to the first message's DATA, the last reply before the second MAIL FROM's 250. */
const dataReplies = (replies: string) => replies.split(/\r\n/).filter((line) => /^(250 .*(queued|OK)|[45]\d\d )/.test(line));

describe("permanent limits are 5xx", () => {
  const parts = (n: number) => Array.from({ length: n }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join("") + "--b--";
  const cases: [string, string][] = [
    ["a header section over 1 MB (the MIME parser's limit; the message is far under SIZE)", `Subject: huge header\r\n${`X-Filler: ${"a".repeat(900)}\r\n`.repeat(1300)}\r\nbody`],
    ["a single header line over 1 MB", `Subject: one huge line\r\nX-Long: ${"a".repeat(1_100_000)}\r\n\r\nbody`],
    ["more than 1,000 MIME parts", `Subject: many parts\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${parts(1001)}`],
  ];
  it.each(cases)("%s: 552 5.3.4, nothing stored, the connection goes on", async (_name, message) => {
    const before = stored();
    const replies = await rawSmtp(port, twoMessages(message));
    const [first, second] = dataReplies(replies).filter((line) => !/^250 Accepted/.test(line) && !/^250 OK$/.test(line)).slice(-2);
    expect(first).toMatch(/^552 5\.3\.4 message refused: max (header size|allowed child nodes)/);
    expect(second).toMatch(/^250 /);
    expect(stored()).toBe(before + 1);
  });

  it("a message just inside the part limit is taken (the limit, not multipart itself, is refused)", async () => {
    const replies = await rawSmtp(port, twoMessages(`Subject: many parts ok\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n${parts(900)}`));
    expect(replies).not.toMatch(/^[45]\d\d /m);
  });

  it("an unknown mailbox is 550 5.1.1, another domain 550 5.7.1 (relay denied)", async () => {
    const replies = await rawSmtp(port, ["EHLO c.test\r\n", "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<nobody@${t.domain}>\r\n`, "RCPT TO:<x@elsewhere.example>\r\n", "QUIT\r\n"]);
    expect(replies).toMatch(/^550 5\.1\.1 /m);
    expect(replies).toMatch(/^550 5\.7\.1 /m);
  });

  it("a mailbox deleted between RCPT TO and the end of DATA is 550 5.1.1", async () => {
    const gone = (await t.api("POST", "/v1/mailboxes", { name: "gone", domain: t.domain, password: "correct horse" })).body.id;
    const c = new SmtpClient(port);
    await c.until((x) => /^220 /m.test(x.replies));
    c.write(`EHLO c.test\r\nMAIL FROM:<s@outside.test>\r\nRCPT TO:<gone@${t.domain}>\r\nDATA\r\n`);
    await c.until((x) => /^354 /m.test(x.replies));
    expect((await t.api("DELETE", `/v1/mailboxes/${gone}`)).status).toBe(200);
    c.write("Subject: too late\r\n\r\nhi\r\n.\r\nQUIT\r\n");
    await c.until((x) => x.closed);
    expect(c.replies).toMatch(/^550 5\.1\.1 no recipient mailbox exists any more/m);
  });
});

describe("what can succeed later is 4xx", () => {
  it("recipients beyond the limit are 452 (the sender sends them in another transaction)", async () => {
    const unregister = p.services.inbound.route((rcpt) => rcpt.endsWith("@bulk.test"), async () => undefined);
    try {
      const rcpts = Array.from({ length: 101 }, (_, i) => `RCPT TO:<r${i}@bulk.test>\r\n`);
      const replies = await rawSmtp(port, ["EHLO c.test\r\n", "MAIL FROM:<s@outside.test>\r\n", ...rcpts, "QUIT\r\n"]);
      expect(replies.match(/^452 .*too many recipients/gm)).toHaveLength(1);
    } finally {
      unregister();
    }
  });

  it("a failing route handler (a store away) is 451 4.3.0", async () => {
    const unregister = p.services.inbound.route((rcpt) => rcpt === "flaky@routes.test", async () => {
      throw new Error("database away");
    });
    try {
      const replies = await rawSmtp(port, ["EHLO c.test\r\n", "MAIL FROM:<s@outside.test>\r\n", "RCPT TO:<flaky@routes.test>\r\n", "DATA\r\n", "Subject: x\r\n\r\ny\r\n.\r\n", "QUIT\r\n"]);
      expect(replies).toMatch(/^451 4\.3\.0 /m);
    } finally {
      unregister();
    }
  });
});
