// The webhook -> forward job path on PostgreSQL (issue 15): a bot connected through the Bot API
// emulator, its hook served on loopback, the update acknowledged as a committed job in the
// PostgreSQL queue, and the worker (jobs/worker.ts on a PgJobQueue) forwarding it byte for byte,
// recording a failed attempt through its outcome's transaction and retrying on the W2 schedule.
// The whole platform cannot start on PostgreSQL until every area can (db/postgres/coverage.ts),
// so the messenger is assembled here as services.ts does it, on the PostgreSQL store.
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaults } from "../config.ts";
import { postgresBackend, type Backend } from "../db/backend.ts";
import { PgEventOutbox } from "../events/pg-event-outbox.ts";
import { manualClock } from "../jobs/clock.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { createWorker, type Worker } from "../jobs/worker.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { newProject, useStore } from "../test/backends.ts";
import { connectBot } from "./connect-bot.ts";
import { FORWARD_JOB, FORWARD_RETRY_MS, setUpForwarding } from "./forwarding.ts";
import { registerMessengerHooks } from "./hook-routes.ts";
import { createMessenger, messengerJobHandlers, type MessengerContext } from "./messenger-context.ts";
import { PgBotRepository } from "./pg-bot-repository.ts";
import { startBotApiEmulator, type BotApiEmulator } from "./test/bot-api-emulator.ts";
import { startReceiver, type Receiver } from "./test/messenger-fixture.ts";

describe("messenger forwarding on postgres", () => {
  const store = useStore("postgres");
  const clock = manualClock();
  let emulator: BotApiEmulator;
  let receiver: Receiver;
  let app: FastifyInstance;
  let backend: Backend;
  let m: MessengerContext;
  let worker: Worker;

  beforeAll(async () => {
    if (store.main.backend !== "postgres") throw new Error("postgres only");
    const pg = store.main.pg;
    emulator = await startBotApiEmulator();
    receiver = await startReceiver();
    const jobs = new PgJobQueue(pg, clock);
    backend = postgresBackend(pg, jobs, new PgEventOutbox(jobs, clock));
    const config = { ...defaults, allowHttpLoopbackWebhooks: true, messenger: { ...defaults.messenger, apiRoot: emulator.url } };
    m = createMessenger(config, new PgBotRepository(pg), backend, Buffer.alloc(32, 7), { secrets: new SecretBox(Buffer.alloc(32, 7)), clock });
    app = Fastify();
    await registerMessengerHooks(app, m);
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    m.publicUrl = () => url;
    worker = createWorker({ queue: backend.queue, clock, handlers: messengerJobHandlers(m) });
  });
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await receiver?.close();
    await emulator?.close();
  });

  it("acknowledges an update as a committed job and forwards it byte for byte; a failed attempt is recorded and retried", async () => {
    const project = await newProject(store.main);
    const bot = emulator.addBot({ username: "pg_forward_bot" });
    const connected = await connectBot(m, project, bot.token, null);
    if (!connected.ok) throw new Error(connected.message);
    expect(await m.bots.list(project)).toEqual([connected.bot]);
    const { hookUrl } = await setUpForwarding(m, connected.bot, receiver.url);
    expect(bot.webhook.url).toBe(hookUrl);

    const raw = { update_id: 910001, message: { message_id: 1, text: "h\u00e9llo \u{1F600} \"quoted\"", chat: { id: 42, type: "private" }, date: 1 } };
    expect((await emulator.deliver(bot.token, raw)).status).toBe(200);
    // Committed before the 200, and not forwarded before the worker runs.
    expect(await backend.countJobs(FORWARD_JOB)).toBe(1);
    expect(await m.bots.pendingForwards(connected.bot.id)).toBe(1);
    expect(receiver.bodies).toEqual([]);
    expect(await worker.drain()).toBe(1);
    expect(receiver.bodies).toEqual([JSON.stringify(raw)]);
    expect(receiver.headers[0]["x-platform-bot-id"]).toBe(connected.bot.id);
    expect(await backend.countJobs(FORWARD_JOB)).toBe(0);

    // The receiver fails: the attempt's error is written with the rescheduling, the update kept.
    receiver.status = 503;
    const retried = { update_id: 910002, message: { text: "retry me" } };
    expect((await emulator.deliver(bot.token, retried)).status).toBe(200);
    expect(await worker.drain()).toBe(1);
    expect(await backend.countJobs(FORWARD_JOB)).toBe(1);
    expect(await m.bots.byId(connected.bot.id)).toMatchObject({ forwardErrorAt: clock.now(), forwardError: `forwarding to ${receiver.url} failed: answered 503` });
    expect(await worker.drain()).toBe(0); // not due before its retry time
    receiver.status = 200;
    clock.advance(FORWARD_RETRY_MS[0]);
    expect(await worker.drain()).toBe(1);
    expect(receiver.bodies).toEqual([JSON.stringify(raw), JSON.stringify(retried)]);
    expect(await backend.countJobs(FORWARD_JOB)).toBe(0);
  });

  it("refuses a forged update and queues nothing", async () => {
    const project = await newProject(store.main);
    const bot = emulator.addBot({ username: "pg_forged_bot" });
    const connected = await connectBot(m, project, bot.token, null);
    if (!connected.ok) throw new Error(connected.message);
    const { hookUrl } = await setUpForwarding(m, connected.bot, receiver.url);
    const before = await backend.countJobs(FORWARD_JOB);
    const res = await fetch(hookUrl, { method: "POST", body: JSON.stringify({ update_id: 1 }), headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "wrong" } });
    expect(res.status).toBe(401);
    expect(await backend.countJobs(FORWARD_JOB)).toBe(before);
  });
});
