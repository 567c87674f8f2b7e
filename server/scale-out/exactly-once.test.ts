// Two instances on one PostgreSQL behind nginx (issue 15): what a single SQLite writer made
// exact must stay exact when two processes share the work. Sends and webhook deliveries are
// claimed with FOR UPDATE SKIP LOCKED (each handed over once), the rate limit is counted in
// PostgreSQL (decision P4: never more than the limit), a webmail link is redeemed by one UPDATE.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScaleOut, type ScaleOut } from "../../test/support/scale-out.ts";
import { apiFor, type Api } from "../test/harness.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";
import { startEventReceiver, tally, type EventReceiver } from "./event-receiver.ts";
import { platformMessageId, recipientZones, senderDomain } from "./recipient-zones.ts";
import { inParallel, until } from "./until.ts";

let deployment: ScaleOut;
let sink: SmtpSink;
let receiver: EventReceiver;

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = await startEventReceiver();
  deployment = await startScaleOut({
    env: { RELAY_PORT: String(sink.port), RELAY_ALLOW_LOOPBACK: "on", ALLOW_HTTP_LOOPBACK_WEBHOOKS: "on" },
  });
}, 180_000);

afterAll(async () => {
  await deployment?.stop();
  await receiver?.close();
  await sink?.close();
});

describe("two instances behind a round-robin proxy", () => {
  it("hands each of 1,000 sends to the recipient's server once and each of their 1,000 webhook deliveries over once", { timeout: 900_000 }, async () => {
    const project = await deployment.project("exactly-once");
    const api = apiFor(deployment.proxy.url, project.key);
    // Four recipient domains: each is a group of its own, so both instances relay in parallel.
    const zones = ["d0.test", "d1.test", "d2.test", "d3.test"];
    await recipientZones(deployment, api, project.id, zones);
    await senderDomain(deployment, api, project.id, "sender.test");
    const hook = await api("POST", "/v1/webhooks", { url: receiver.url, events: ["mail.delivered"] });
    expect(hook.status).toBe(200);

    const sends = 1_000;
    const started = performance.now();
    const accepted = await inParallel(sends, 16, async (i) => {
      const res = await api("POST", "/v1/mail/send", { from: "load@sender.test", to: `r${i}@${zones[i % zones.length]}`, subject: `load ${i}`, text: `message ${i}` });
      if (res.status !== 200) throw new Error(`send ${i} answered ${res.status}: ${JSON.stringify(res.body)}`);
      return (res.body as { id: string }).id;
    });
    expect(new Set(accepted).size).toBe(sends);
    const acceptedMs = performance.now() - started;

    // Done when every message reached the sink, every delivery event the receiver, and no relay
    // or webhook job is left that could hand anything over a second time.
    const ids = new Set(accepted);
    const relayedIds = () => new Set(sink.messages.map(platformMessageId));
    const notifiedIds = () => new Set(receiver.received.map((e) => e.data.messageId as string));
    await until("every send relayed and notified", async () => {
      if ([...ids].some((id) => !relayedIds().has(id) || !notifiedIds().has(id))) return false;
      const { rows } = await deployment.db.query<{ n: string }>("SELECT COUNT(*) AS n FROM jobs WHERE kind IN ('mail.relay', 'webhook.deliver')");
      return Number(rows[0].n) === 0;
    }, { tries: 6000, everyMs: 100 });
    const doneMs = performance.now() - started;

    const relayed = tally(sink.messages, platformMessageId);
    const events = tally(receiver.received, (e) => e.id);
    const perMessage = tally(receiver.received, (e) => e.data.messageId as string);
    console.log(
      `scale-out: ${sends} sends accepted through nginx, ${sink.messages.length} messages at the sink, ${receiver.received.length} webhook deliveries (${events.size} distinct events); ` +
        `accepted after ${(acceptedMs / 1000).toFixed(1)} s, all relayed and notified after ${(doneMs / 1000).toFixed(1)} s (printed, not asserted)`,
    );
    expect([...relayed.keys()].sort()).toEqual([...ids].sort());
    expect([...relayed.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.received.length).toBe(sends);
    expect([...events.values()].every((n) => n === 1)).toBe(true);
    expect([...perMessage.keys()].sort()).toEqual([...ids].sort());
    expect(receiver.received.every((e) => e.type === "mail.delivered")).toBe(true);
  });

  it("admits exactly the limit when 300 requests of one key hit both instances at once", async () => {
    const limit = 100;
    const project = await deployment.project("rate-limit", limit);
    // Straight to each instance, half each, all at once: both count the same window. The 300
    // requests take a small part of the 60-second window (decision L1), which starts at the first.
    const statuses = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        const res = await fetch(`${deployment.instances[i % 2].url}/v1/mailboxes`, { headers: { authorization: `Bearer ${project.key}` } });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    const limited = statuses.filter((s) => s === 429).length;
    console.log(`scale-out rate limit: ${admitted} admitted, ${limited} answered 429 of 300 (limit ${limit})`);
    expect(admitted).toBe(limit);
    expect(limited).toBe(300 - limit);
  });

  it("signs a webmail link in once when it is opened on both instances at once", async () => {
    const project = await deployment.project("webmail");
    const api: Api = apiFor(deployment.proxy.url, project.key);
    await senderDomain(deployment, api, project.id, "webmail.test");
    expect((await api("POST", "/v1/mailboxes", { name: "alice", domain: "webmail.test", password: "correct horse battery" })).status).toBe(200);

    for (let n = 0; n < 20; n++) {
      const link = await api("POST", "/v1/webmail/login-link", { mailbox: "alice@webmail.test" });
      expect(link.status).toBe(200);
      const token = new URL((link.body as { url: string }).url).searchParams.get("token")!;
      const answers = await Promise.all(
        deployment.instances.map(async (instance) => {
          const res = await fetch(`${instance.url}/webmail/login?token=${encodeURIComponent(token)}`, { redirect: "manual" });
          await res.arrayBuffer();
          return { instance, status: res.status, cookie: res.headers.get("set-cookie") };
        }),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([303, 403]);
      // The session it made is the deployment's: the other instance knows it too.
      const signedIn = answers.find((a) => a.status === 303)!;
      const other = deployment.instances.find((i) => i !== signedIn.instance)!;
      const inbox = await fetch(`${other.url}/webmail`, { headers: { cookie: signedIn.cookie!.split(";")[0] } });
      expect(inbox.status).toBe(200);
      expect(await inbox.text()).toContain("alice@webmail.test");
    }
  });
});
