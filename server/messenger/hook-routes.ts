// `POST /hooks/messenger/{hookId}`: where the messenger platform delivers bot updates. Outside
// /v1 (the platform has no API key); a request is ours only with the bot's secret_token in
// X-Telegram-Bot-Api-Secret-Token. An accepted update is stored as a job before the 200, so an
// acknowledged update survives kill -9; the body is kept as the exact text received.
import type { FastifyInstance, FastifyReply } from "fastify";
import { MANAGER_UPDATE_JOB } from "./create-link.ts";
import { FORWARD_JOB, forwardGroup, type ForwardPayload } from "./forwarding.ts";
import type { MessengerContext } from "./messenger-context.ts";
import { secretMatches } from "./secret-token.ts";

function refuse(reply: FastifyReply, status: number, code: string, error: string): FastifyReply {
  return reply.code(status).send({ error, code });
}

/** An Update is a JSON object with an integer update_id (null, arrays and scalars have none). */
function isUpdate(text: string): boolean {
  let u: { update_id?: unknown } | null;
  try {
    u = JSON.parse(text);
  } catch {
    return false;
  }
  return Number.isInteger(u?.update_id);
}

export async function registerMessengerHooks(root: FastifyInstance, m: MessengerContext): Promise<void> {
  await root.register(async (app) => {
    // The raw text, not a parsed object: the forwarded body must be byte-identical.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "string", bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));

    app.post<{ Params: { hookId: string } }>("/hooks/messenger/:hookId", async (request, reply) => {
      const { hookId } = request.params;
      const body = typeof request.body === "string" ? request.body : "";
      const given = request.headers["x-telegram-bot-api-secret-token"];
      if (hookId === m.managerHook.id) {
        if (!secretMatches(given, m.managerHook.secret)) return refuse(reply, 401, "unauthorized", "missing or wrong X-Telegram-Bot-Api-Secret-Token");
        if (!isUpdate(body)) return refuse(reply, 400, "invalid_request", "the body is not a JSON Update with an update_id");
        await m.backend.transact((tx) => m.backend.enqueue(tx, MANAGER_UPDATE_JOB, { body }));
        return reply.code(200).send({ ok: true });
      }
      const bot = await m.bots.byHookId(hookId);
      if (!bot?.hookSecretSealed || !bot.forwardUrl) return refuse(reply, 404, "not_found", "no such hook");
      if (!secretMatches(given, m.secrets.open(bot.hookSecretSealed))) return refuse(reply, 401, "unauthorized", "missing or wrong X-Telegram-Bot-Api-Secret-Token");
      if (!isUpdate(body)) return refuse(reply, 400, "invalid_request", "the body is not a JSON Update with an update_id");
      const payload: ForwardPayload = { bot: bot.id, forwardUrl: bot.forwardUrl, body };
      const group = forwardGroup(bot.forwardUrl);
      await m.backend.transact((tx) => m.backend.enqueue(tx, FORWARD_JOB, payload, { group }));
      return reply.code(200).send({ ok: true });
    });
  });
}
