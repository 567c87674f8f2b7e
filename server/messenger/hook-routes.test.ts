// The hook endpoint's gate, on a real Fastify instance: which secret each hook demands (the
// manager bot's own, or the sealed one of the bot that owns the hook), the exact refusals, and
// that nothing is queued unless both the secret and the body are right. The end-to-end path with
// the Bot API emulator is in forwarding.test.ts and create-link.test.ts.
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SecretBox } from "../secrets/secret-box.ts";
import type { BotRecord } from "./bot-repository.ts";
import { MANAGER_UPDATE_JOB } from "./create-link.ts";
import { FORWARD_JOB } from "./forwarding.ts";
import { registerMessengerHooks } from "./hook-routes.ts";
import type { MessengerContext } from "./messenger-context.ts";

const box = new SecretBox(Buffer.alloc(32, 3));
const managerHook = { id: "manager-hook-id", secret: "manager-secret-0123456789" };
const botSecret = "bot-secret-9876543210";
const bots: Record<string, Partial<BotRecord>> = {
  "bot-hook": { id: "bot_1", hookSecretSealed: box.seal(botSecret), forwardUrl: "https://receiver.example.org/updates" },
  "no-forward": { id: "bot_2", hookSecretSealed: box.seal(botSecret), forwardUrl: null },
  "no-secret": { id: "bot_3", hookSecretSealed: null, forwardUrl: "https://receiver.example.org/updates" },
};
let queued: Array<{ kind: string; payload: unknown; options?: unknown }> = [];
let app: FastifyInstance;
const hookTx = { kind: "sqlite", db: "the hook's transaction" };

beforeAll(async () => {
  const m = {
    managerHook,
    secrets: box,
    bots: { byHookId: async (id: string) => bots[id] as BotRecord | undefined },
    // A transaction of its own around each enqueue: the job is committed before the 200.
    backend: {
      transact: async (fn: (tx: unknown) => unknown) => fn(hookTx),
      enqueue: (tx: unknown, kind: string, payload: unknown, options?: unknown) => {
        expect(tx).toBe(hookTx);
        queued.push({ kind, payload, options });
        return queued.length;
      },
    },
  } as unknown as MessengerContext;
  app = Fastify();
  await registerMessengerHooks(app, m);
  await app.ready();
});
afterAll(() => app.close());
beforeEach(() => {
  queued = [];
});

const update = JSON.stringify({ update_id: 7, message: { text: "hi" } });
const post = (hookId: string, body: string, secret?: string | string[]) =>
  app.inject({ method: "POST", url: `/hooks/messenger/${hookId}`, payload: body, headers: { "content-type": "application/json", ...(secret === undefined ? {} : { "x-telegram-bot-api-secret-token": secret }) } });
const unauthorized = { error: "missing or wrong X-Telegram-Bot-Api-Secret-Token", code: "unauthorized" };
const notUpdate = { error: "the body is not a JSON Update with an update_id", code: "invalid_request" };

describe("the manager bot's hook", () => {
  it("queues an update with the manager's secret, the body exactly as sent", async () => {
    const body = `{"update_id":1,  "managed_bot":{}}`;
    const res = await post(managerHook.id, body, managerHook.secret);
    expect([res.statusCode, res.json()]).toEqual([200, { ok: true }]);
    expect(queued).toEqual([{ kind: MANAGER_UPDATE_JOB, payload: { body }, options: undefined }]);
  });

  it("refuses a missing or wrong secret, and a bot's secret, with 401 and queues nothing", async () => {
    for (const secret of [undefined, "wrong", botSecret]) {
      const res = await post(managerHook.id, update, secret);
      expect([res.statusCode, res.json()]).toEqual([401, unauthorized]);
    }
    expect(queued).toEqual([]);
  });

  it("refuses a body that is not an Update with 400", async () => {
    for (const body of ["not json", "[1]", "null", `{"update_id":"7"}`, `{"update_id":1.5}`, `{"message":{}}`]) {
      const res = await post(managerHook.id, body, managerHook.secret);
      expect([body, res.statusCode, res.json()]).toEqual([body, 400, notUpdate]);
    }
    expect(queued).toEqual([]);
  });
});

describe("a bot's hook", () => {
  it("queues the update for its forwardUrl, grouped by the receiver's origin", async () => {
    const res = await post("bot-hook", update, botSecret);
    expect([res.statusCode, res.json()]).toEqual([200, { ok: true }]);
    expect(queued).toEqual([
      { kind: FORWARD_JOB, payload: { bot: "bot_1", forwardUrl: "https://receiver.example.org/updates", body: update }, options: { group: "messenger.forward:https://receiver.example.org" } },
    ]);
  });

  it("refuses a missing, wrong or the manager's secret with 401", async () => {
    for (const secret of [undefined, "wrong", managerHook.secret, [botSecret, botSecret]]) {
      const res = await post("bot-hook", update, secret);
      expect([res.statusCode, res.json()]).toEqual([401, unauthorized]);
    }
    expect(queued).toEqual([]);
  });

  it("answers 404 for an unknown hook, or one without a secret or a forwardUrl, whatever the secret", async () => {
    for (const hook of ["unknown", "no-forward", "no-secret"]) {
      const res = await post(hook, update, botSecret);
      expect([hook, res.statusCode, res.json()]).toEqual([hook, 404, { error: "no such hook", code: "not_found" }]);
    }
    expect(queued).toEqual([]);
  });

  it("refuses a body that is not an Update with 400, after the secret", async () => {
    const res = await post("bot-hook", `{"update_id":null}`, botSecret);
    expect([res.statusCode, res.json()]).toEqual([400, notUpdate]);
    const forged = await post("bot-hook", "garbage", "wrong");
    expect(forged.statusCode).toBe(401);
    expect(queued).toEqual([]);
  });

  it("refuses an empty POST with 400", async () => {
    const res = await app.inject({ method: "POST", url: "/hooks/messenger/bot-hook", headers: { "x-telegram-bot-api-secret-token": botSecret } });
    expect([res.statusCode, res.json()]).toEqual([400, notUpdate]);
    expect(queued).toEqual([]);
  });

  it("takes any content type as text", async () => {
    const res = await app.inject({ method: "POST", url: "/hooks/messenger/bot-hook", payload: update, headers: { "content-type": "text/plain", "x-telegram-bot-api-secret-token": botSecret } });
    expect(res.statusCode).toBe(200);
    expect(queued).toHaveLength(1);
  });
});
