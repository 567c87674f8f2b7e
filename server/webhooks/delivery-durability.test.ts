// kill -9 of the server process with 1,000 deliveries pending against a slow receiver, then a
// restart: every delivery ends delivered, none recorded as delivered before the kill is sent
// again, and the only duplicates the receiver sees (counting by envelope id) are attempts that
// were in flight at the kill. Prints that count.
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, expect, it } from "vitest";
import { startTestPlatform } from "../test/harness.ts";
import { startReceiver, type TestReceiver } from "../test/receiver.ts";

const EVENTS = 1000;
const children: ChildProcess[] = [];
let receiver: TestReceiver | undefined;
let dataDir = "";
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await receiver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function startServer(): ChildProcess {
  const child = spawn(process.execPath, [path.resolve("server/main.ts")], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", DNS_ENABLED: "off", SMTP_ENABLED: "off", DEMO: "off", ALLOW_HTTP_LOOPBACK_WEBHOOKS: "on", LOG_LEVEL: "error" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.push(child);
  return child;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

it("delivers all of 1,000 pending deliveries across kill -9, resending only what was in flight", async () => {
  // Each answer takes 20 ms, so at the kill the worker has attempts open at the receiver.
  receiver = await startReceiver(() => ({ status: 200, delayMs: 20 }));
  const setup = await startTestPlatform({ allowHttpLoopbackWebhooks: true, dns: { enabled: false, host: "127.0.0.1", port: 0 } }, { runWorker: false });
  dataDir = setup.dataDir;
  const tenant = await setup.newTenant("durable");
  expect((await tenant.api("POST", "/v1/webhooks", { url: receiver.url, events: ["mail.delivered"] })).status).toBe(200);
  const { backend } = setup.services;
  await backend.transact(async (tx) => {
    for (let i = 0; i < EVENTS; i++) await backend.emit(tx, tenant.projectId, "mail.delivered", { messageId: `msg_${i}`, to: "bob@example.org", relay: "mx.example.org", relayMessageId: `q${i}` });
  });
  await setup.close(); // the data stays; the server process below owns it now

  const db = new DatabaseSync(path.join(dataDir, "platform.sqlite"), { readOnly: true });
  const deliveredIds = () => new Set((db.prepare("SELECT event_id FROM webhook_deliveries WHERE status = 'delivered'").all() as { event_id: string }[]).map((r) => r.event_id));
  const envelopeId = (body: string) => (JSON.parse(body) as { id: string }).id;

  const first = startServer();
  await until(() => receiver!.received.length >= 300);
  const exited = new Promise((r) => first.once("exit", r));
  first.kill("SIGKILL");
  await exited;

  const recordedAtKill = deliveredIds();
  const receivedAtKill = receiver.received.map((r) => envelopeId(r.body));
  const inFlightAtKill = new Set(receivedAtKill.filter((id) => !recordedAtKill.has(id)));
  expect(recordedAtKill.size).toBeLessThan(EVENTS);

  const second = startServer();
  await until(() => deliveredIds().size === EVENTS);
  second.kill("SIGTERM");

  const seen = new Map<string, number>();
  for (const r of receiver.received) seen.set(envelopeId(r.body), (seen.get(envelopeId(r.body)) ?? 0) + 1);
  const duplicates = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  console.log(`kill -9 after ${receivedAtKill.length} of ${EVENTS} received: ${recordedAtKill.size} recorded as delivered, ` +
    `${inFlightAtKill.size} in flight at the kill; after restart ${seen.size} distinct events received, ${duplicates.length} received twice`);

  expect(seen.size).toBe(EVENTS); // none lost
  expect((db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status != 'delivered'").get() as { n: number }).n).toBe(0);
  for (const id of recordedAtKill) expect(seen.get(id), id).toBe(1); // recorded as delivered: never sent again
  for (const id of duplicates) expect(inFlightAtKill.has(id), id).toBe(true); // only what was in flight
  expect(Math.max(...seen.values())).toBeLessThanOrEqual(2);
  db.close();
}, 120_000);
