// A message that is not delivered says why (issue 27 item 3, decision H3): each attempt of its
// `to` recipient, with what it led to, the server's reply or why no server answered, is in the
// message detail's `sent` event, and each attempt that did not deliver is logged once at warn.
// Real SMTP (a loopback sink playing a 4xx server, a loopback address nobody listens on) and
// real DNS (our own server), on SQLite and on PostgreSQL.
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";
import { RETRY_DELAYS_MS } from "./retry-schedule.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

describe.each(backends)("delivery attempts on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let sink: SmtpSink;
  let p: TestPlatform;
  let t: Tenant;
  let log = "";
  const clock = manualClock();

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    sink = await startSmtpSink();
    const logTo = new PassThrough();
    logTo.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")));
    p = await startTestPlatform(
      { databaseUrl, relay: { name: "relay.platform.test", port: sink.port, allowLoopback: true } },
      { clock, runWorker: false, logTo },
    );
    t = await p.newTenant(`attempts-${backend}`);
    await hostMailZone(p.services, "dest.test");
    // Nothing listens on 127.0.0.2: connections are refused.
    await hostMailZone(p.services, "void.test", "127.0.0.2");
    // A zone of ours with neither MX nor address records: no server to try.
    await p.services.zones.createZone({ name: "nomx.test" });
  });
  afterAll(async () => {
    await p?.stop();
    await sink?.close();
    await database?.stop();
  });

  const send = async (to: string) =>
    (
      await t.api("POST", "/v1/mail/send", {
        from: `news@${t.domain}`,
        to,
        subject: "Hi",
        text: "x",
      })
    ).body.id as string;
  const detail = async (id: string) => (await t.api("GET", `/v1/mail/messages/${id}`)).body;
  /** The warn lines (pino level 40) the relay wrote about one message. */
  const warnings = (id: string) =>
    log
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 40 && l.messageId === id);

  it("a 4xx, a refused connection and a domain without a mail server each say why the message is delayed", async () => {
    sink.refuse = (rcpt) =>
      rcpt === "busy@dest.test" ? { code: 451, text: "4.2.2 mailbox busy, try later" } : undefined;
    const busy = await send("busy@dest.test");
    const refused = await send("x@void.test");
    const nowhere = await send("x@nomx.test");
    await p.worker.drain();

    for (const [id, reason, host] of [
      [busy, /^451 4\.2\.2 mailbox busy, try later/, "mx.dest.test"],
      [refused, /ECONNREFUSED.*127\.0\.0\.2:\d+/, "mx.void.test"],
      [nowhere, /no address for the MX hosts of nomx\.test/, undefined],
    ] as const) {
      const d = await detail(id);
      expect(d.message.status).toBe("delayed");
      expect(d.events).toHaveLength(1);
      expect(d.events[0]).toMatchObject({ event: "sent" });
      expect(d.events[0].attempts).toEqual([
        {
          attempt: 1,
          at: expect.any(String),
          outcome: "delayed",
          reason: expect.stringMatching(reason),
          ...(host ? { host } : {}),
        },
      ]);
      const lines = warnings(id);
      expect(lines, log).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        msg: "delivery attempt not delivered",
        attempt: 1,
        outcome: "delayed",
        reason: expect.stringMatching(reason),
      });
    }
  });

  it("the attempts add up until delivery: each retry's outcome, then the 250", async () => {
    let refusals = 2;
    sink.refuse = (rcpt) =>
      rcpt === "later@dest.test" && refusals-- > 0
        ? { code: 451, text: "4.7.1 greylisted, try later" }
        : undefined;
    const id = await send("later@dest.test");
    await p.worker.drain();
    for (const delay of RETRY_DELAYS_MS.slice(0, 2)) {
      clock.advance(delay);
      await p.worker.drain();
    }
    const d = await detail(id);
    expect(d.message.status).toBe("delivered");
    expect(d.events.map((e: { event: string }) => e.event)).toEqual(["sent", "delivered"]);
    expect(
      d.events[0].attempts.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome]),
    ).toEqual([
      [1, "delayed"],
      [2, "delayed"],
      [3, "delivered"],
    ]);
    expect(d.events[0].attempts[2].reason).toMatch(/^250 /);
    expect(d.events[1].attempts).toBeUndefined();
    expect(warnings(id).map((l) => l.attempt)).toEqual([1, 2]);
  });
});
