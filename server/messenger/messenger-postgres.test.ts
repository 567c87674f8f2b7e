// The messenger's job paths on PostgreSQL (issue 15), through the Bot API emulator and hooks served
// on loopback. Webhook -> forward: the update acknowledged as a committed job in the PostgreSQL
// queue, the worker (jobs/worker.ts on a PgJobQueue) forwarding it byte for byte, recording a
// failed attempt through its outcome's transaction and retrying on the W2 schedule. Creation
// link: the manager's updates as jobs, the link bound to its user, the new bot, the link's use and
// the preset job committed together, the preset applied.
// The messenger is assembled here as services.ts does it, on the PostgreSQL store, with a manual
// clock; server/postgres-platform.test.ts runs the whole platform on PostgreSQL.
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthContext } from "../auth/auth-context.ts";
import { defaults } from "../config.ts";
import { backendOn, type Backend } from "../db/backend.ts";
import type { Pg } from "../db/postgres/pg.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { manualClock } from "../jobs/clock.ts";
import { createWorker, type Worker } from "../jobs/worker.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { newProject, useStore } from "../test/backends.ts";
import { connectBot } from "./connect-bot.ts";
import { MANAGER_UPDATE_JOB } from "./create-link.ts";
import { FORWARD_JOB, FORWARD_RETRY_MS, setUpForwarding } from "./forwarding.ts";
import { messengerHandlers } from "./handlers.ts";
import { registerMessengerHooks } from "./hook-routes.ts";
import { createMessenger, messengerJobHandlers } from "./create-messenger.ts";
import type { MessengerContext } from "./messenger-context.ts";
import { SqlBotRepository } from "./bot-repository.ts";
import { APPLY_PRESET_JOB } from "./presets.ts";
import { startBotApiEmulator, type BotApiEmulator } from "./test/bot-api-emulator.ts";
import { startReceiver, type Receiver } from "./test/messenger-fixture.ts";
import { verifyAt } from "./test/reference-verify.ts";

describe("messenger jobs on postgres", () => {
  const store = useStore("postgres");
  const clock = manualClock();
  let emulator: BotApiEmulator;
  let receiver: Receiver;
  let app: FastifyInstance;
  let backend: Backend;
  let m: MessengerContext;
  let worker: Worker;
  let managerToken: string;
  let pg: Pg;

  beforeAll(async () => {
    if (store.main.backend !== "postgres") throw new Error("postgres only");
    pg = store.main.pg;
    emulator = await startBotApiEmulator();
    receiver = await startReceiver();
    backend = backendOn(storeOnPostgres(pg), clock);
    managerToken = emulator.addBot({ username: "pg_manager_bot", firstName: "Platform", canManageBots: true }).token;
    const config = { ...defaults, allowHttpLoopbackWebhooks: true, messenger: { ...defaults.messenger, apiRoot: emulator.url, managerToken } };
    m = createMessenger(config, new SqlBotRepository(storeOnPostgres(pg)), backend, Buffer.alloc(32, 7), { secrets: new SecretBox(Buffer.alloc(32, 7)), clock });
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
    const { hookUrl, secret } = await setUpForwarding(m, connected.bot, receiver.url);
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
    // Signed (decision W9): the reference Standard Webhooks library verifies it with the secret.
    expect(verifyAt(clock.now(), secret, receiver.bodies[0], receiver.headers[0])).toEqual(raw);
    expect(receiver.headers[0]["webhook-id"]).toBe(`upd_${connected.bot.id}_910001`);
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
    // The retry is signed at its own time, and still verifies then.
    expect(receiver.headers[1]["webhook-timestamp"]).toBe(String(Math.floor(clock.now() / 1000)));
    expect(verifyAt(clock.now(), secret, receiver.bodies[1], receiver.headers[1])).toEqual(retried);
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

  it("connects a bot through a creation link: the bot, the link's use and the preset job commit together", async () => {
    const project = await newProject(store.main);
    const preset = await m.bots.createPreset(project, { name: "Shop", forwardUrl: receiver.url, commands: [{ command: "start", description: "Start shopping" }], profile: { description: "The shop" } });
    const auth = { projectId: project } as AuthContext;
    const handlers = messengerHandlers(m) as unknown as Record<string, (request: unknown) => Promise<{ link: string }>>;
    const { link } = await handlers.createBotLink({ body: { suggestedUsername: "pg_shop_bot", presetId: preset.id, name: "Shop" }, auth });
    const manager = emulator.bot(managerToken)!;
    expect(manager.webhook.url).toBe(`${m.publicUrl()}/hooks/messenger/${m.managerHook.id}`);
    const [stored] = await pg.query<{ id: string }>("SELECT id FROM bot_links WHERE project_id = $1", [project]);

    // The user starts the manager with the link: an update job, whose outcome binds the link to the user.
    const ref = new URL(link).searchParams.get("start")!;
    await emulator.deliver(managerToken, { message: { message_id: 1, date: 1, chat: { id: 8001, type: "private" }, from: { id: 8001, is_bot: false, first_name: "Ann" }, text: `/start ${ref}` } });
    expect(await backend.countJobs(MANAGER_UPDATE_JOB)).toBe(1);
    expect(await worker.drain()).toBe(1);
    expect(await m.bots.getLink(stored.id)).toMatchObject({ telegramUserId: 8001, bot: null });
    expect(emulator.sentMessages(managerToken).at(-1)).toMatchObject({ chatId: 8001, text: expect.stringContaining("@pg_shop_bot") });

    // The user confirms: managed_bot, the bot connected with its link used and its preset job queued.
    const { bot } = await emulator.createManagedBot(managerToken, { user: { id: 8001, first_name: "Ann" }, username: "pg_shop2_bot", name: "Shop" });
    expect(await worker.drain()).toBe(2); // the manager update, then the preset
    const [connected] = await m.bots.list(project);
    expect(connected).toMatchObject({ botId: bot.id, username: "pg_shop2_bot", note: "created with a bot-creation link", forwardUrl: receiver.url });
    expect(m.secrets.open(connected.tokenSealed)).toBe(bot.token);
    expect(await m.bots.getLink(stored.id)).toMatchObject({ bot: connected.id });
    expect(await backend.countJobs(APPLY_PRESET_JOB)).toBe(0);
    expect(bot.commands).toEqual([{ command: "start", description: "Start shopping" }]);
    expect(bot.description).toBe("The shop");
    expect(bot.webhook.url).toBe(`${m.publicUrl()}/hooks/messenger/${connected.hookId}`);
    expect(emulator.sentMessages(managerToken).at(-1)).toMatchObject({ chatId: 8001, text: "@pg_shop2_bot is connected to the project." });

    // A second bot created by the same user finds no open link: it is not connected.
    await emulator.createManagedBot(managerToken, { user: { id: 8001, first_name: "Ann" }, username: "pg_shop3_bot", name: "Shop" });
    expect(await worker.drain()).toBe(1);
    expect((await m.bots.list(project)).map((b) => b.username)).toEqual(["pg_shop2_bot"]);
  });
});
