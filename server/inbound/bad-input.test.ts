// Hostile and broken input over real SMTP: each gets its SMTP answer, nothing is half-stored,
// and the listener goes on serving. The size limit and idle timeout are lowered so the test
// does not push 25 MB or wait a minute; the code paths are the production ones.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { rawSmtp, sendTo } from "../test/smtp.ts";
import { defaults } from "../config.ts";

const LIMIT = 1024 * 1024;
let p: TestPlatform;
let t: Tenant;
let port: number;
let alice: string;
let bob: string;

beforeAll(async () => {
  p = await startTestPlatform({ smtp: { ...defaults.smtp, port: 0, maxMessageBytes: LIMIT, idleTimeoutMs: 500 } });
  port = p.smtp!.port;
  t = await p.newTenant("badinput");
  alice = (await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" })).body.id;
  bob = (await t.api("POST", "/v1/mailboxes", { name: "bob", domain: t.domain, password: "correct horse" })).body.id;
});
afterAll(() => p.stop());

const messages = async (id: string) => (await t.api("GET", `/v1/mailboxes/${id}/messages?limit=500`)).body.messages as { id: string; subject: string }[];
const stored = () => (p.db.prepare("SELECT COUNT(*) AS n FROM message_contents").get() as { n: number }).n;
const conversation = (data: string | Buffer, rcpt = `alice@${t.domain}`) => [
  "EHLO client.test\r\n", "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<${rcpt}>\r\n`, "DATA\r\n", data, "QUIT\r\n",
];
/** The listener still takes a plain message afterwards. */
async function stillServing(): Promise<void> {
  const info = await sendTo(port, { from: "s@outside.test", to: `bob@${t.domain}`, subject: "still serving", text: "ok" });
  expect(info.response).toMatch(/^250 /);
}

describe("broken messages are stored as well as they parse, and read back", () => {
  const cases: [string, string | Buffer][] = [
    ["a multipart without its closing boundary", `Subject: broken multipart\r\nContent-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\nfirst part\r\n--b1\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64%%%\r\n.\r\n`],
    ["an unknown charset and broken quoted-printable", `Subject: =?x-unknown-charset?Q?caf=E9?=\r\nContent-Type: text/plain; charset=x-unknown-charset\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nbroken =ZZ soft=\r\nbreak\r\n.\r\n`],
    ["8-bit bytes in headers", Buffer.concat([Buffer.from("Subject: 8bit caf"), Buffer.from([0xe9, 0xff]), Buffer.from("\r\nFrom: J\xfcrgen <j@outside.test>\r\n\r\nbody\r\n.\r\n", "latin1")])],
    ["a 200 KB header line", `Subject: long header\r\nX-Long: ${"a".repeat(200_000)}\r\n\r\nbody\r\n.\r\n`],
    ["no header block at all", `just a line of text\r\n.\r\n`],
  ];
  it.each(cases)("%s", async (_name, data) => {
    const before = (await messages(alice)).length;
    const replies = await rawSmtp(port, conversation(data));
    expect(replies).toMatch(/^250 .*queued|^250 OK/m);
    const list = await messages(alice);
    expect(list).toHaveLength(before + 1);
    const got = await t.api("GET", `/v1/mailboxes/${alice}/messages/${list[0].id}`);
    expect(got.status).toBe(200);
    expect(got.body.headers[0].name).toBe("Received");
  });
});

describe("limits", () => {
  it("a message over the size limit is 552 and stores nothing; the same connection goes on", async () => {
    const before = stored();
    const big = `Subject: too big\r\n\r\n${"x".repeat(998)}\r\n`.repeat(Math.ceil((LIMIT * 1.5) / 1000)) + ".\r\n";
    const replies = await rawSmtp(port, [...conversation(big).slice(0, -1), "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<alice@${t.domain}>\r\n`, "DATA\r\n", "Subject: small after big\r\n\r\nok\r\n.\r\n", "QUIT\r\n"]);
    expect(replies).toMatch(/^552 .*exceeds fixed maximum message size/m);
    expect(stored()).toBe(before + 1);
    expect((await messages(alice)).map((m) => m.subject)).not.toContain("too big");
    expect((await messages(alice))[0].subject).toBe("small after big");
  });

  it("a SIZE declared over the limit is refused at MAIL FROM", async () => {
    const replies = await rawSmtp(port, ["EHLO c.test\r\n", `MAIL FROM:<s@outside.test> SIZE=${LIMIT + 1}\r\n`, "QUIT\r\n"]);
    expect(replies).toMatch(/^552 /m);
  });

  it("1,000 recipients: 100 accepted, the rest 452, and the message goes to the 100", async () => {
    const seen: string[][] = [];
    const unregister = p.services.inbound.route((rcpt) => rcpt.endsWith("@bulk.test"), async (m) => void seen.push(m.recipients));
    try {
      const rcpts = Array.from({ length: 1000 }, (_, i) => `RCPT TO:<r${i}@bulk.test>\r\n`);
      const replies = await rawSmtp(port, ["EHLO c.test\r\n", "MAIL FROM:<s@outside.test>\r\n", ...rcpts, "DATA\r\n", "Subject: bulk\r\n\r\nhi\r\n.\r\n", "QUIT\r\n"]);
      // MAIL FROM's 250 and the 100 recipients'.
      expect(replies.match(/^250 Accepted/gm)).toHaveLength(101);
      expect(replies.match(/^452 .*too many recipients/gm)).toHaveLength(900);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toHaveLength(100);
    } finally {
      unregister();
    }
    await stillServing();
  });

  it("a connection that stalls in the middle of DATA is closed and stores nothing", async () => {
    const before = stored();
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1");
      let replies = "";
      socket.on("data", (d) => {
        replies += d;
        if (/^354 /m.test(replies) && !replies.includes("stalled-sent")) {
          replies += "stalled-sent";
          socket.write("Subject: stalled\r\n\r\nhalf a message");
        }
      });
      socket.write(conversation("").slice(0, 4).join(""));
      // The server closes it after the idle timeout; nothing ends the DATA.
      socket.on("close", () => resolve());
      socket.on("error", reject);
    });
    expect(stored()).toBe(before);
    await stillServing();
  });
});

describe("protocol abuse", () => {
  it("pipelined junk gets error replies; what follows it is still served", async () => {
    const replies = await rawSmtp(port, [
      "EHLO c.test\r\nFOO bar\r\nMAIL FROM:<<<>>>\r\nRCPT TO:<x@y>\r\nDATA\r\n\u0000\u0001\u00ff garbage\r\n",
      "MAIL FROM:<s@outside.test>\r\n", `RCPT TO:<bob@${t.domain}>\r\n`, "DATA\r\n", "Subject: after junk\r\n\r\nfine\r\n.\r\n", "QUIT\r\n",
    ]);
    expect(replies).toMatch(/^5\d\d /m);
    expect(replies).toMatch(/^250 .*(queued|OK)/m);
    expect((await messages(bob)).map((m) => m.subject)).toContain("after junk");
  });

  it("no SMTP smuggling: a bare-LF dot does not end the message, so no second message sneaks in", async () => {
    for (const fake of ["\n.\n", "\r\n.\n", "\n.\r\n"]) {
      const beforeBob = (await messages(bob)).length;
      const smuggled = `Subject: carrier\r\n\r\nhello${fake}MAIL FROM:<admin@${t.domain}>\r\nRCPT TO:<bob@${t.domain}>\r\nDATA\r\nSubject: smuggled\r\n\r\nevil\r\n.\r\n`;
      const replies = await rawSmtp(port, conversation(smuggled));
      expect(replies.match(/^250 .*(queued|OK)/gm)).toHaveLength(1);
      expect((await messages(bob)).length).toBe(beforeBob);
      const carrier = (await messages(alice))[0];
      expect(carrier.subject).toBe("carrier");
      const text = (await t.api("GET", `/v1/mailboxes/${alice}/messages/${carrier.id}`)).body.text as string;
      expect(text).toContain("Subject: smuggled");
    }
  });
});
