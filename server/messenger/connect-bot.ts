// Connecting a bot by its token: getMe proves the token and names the bot; the insert checks the
// project's cap and that no project has the bot yet, in one transaction. The same bot in another
// project is refused exactly like a duplicate here (E2: existence never leaks across projects).
import { ApiError } from "../../generated/server/errors.ts";
import { BotApiFailure } from "../adapters/bot-api.ts";
import { limitReached } from "../http/errors.ts";
import type { BotRecord } from "./bot-repository.ts";
import { isBotToken } from "./bot-token.ts";
import type { MessengerContext } from "./messenger-context.ts";

export type ConnectOutcome =
  | { ok: true; bot: BotRecord }
  | { ok: false; reason: "malformed" | "rejected" | "duplicate" | "limit_reached" | "unavailable"; message: string };

export const DUPLICATE_MESSAGE = "this bot is already connected";

export async function connectBot(m: MessengerContext, projectId: string, token: string, note: string | null): Promise<ConnectOutcome> {
  if (!isBotToken(token)) return { ok: false, reason: "malformed", message: "is not a bot token (<digits>:<20 to 100 of A-Z a-z 0-9 _ ->)" };
  let me;
  try {
    me = await m.api(token).getMe();
  } catch (error) {
    if (!(error instanceof BotApiFailure)) throw error;
    return error.kind === "unauthorized"
      ? { ok: false, reason: "rejected", message: "is not accepted by the messenger platform (revoked, or never issued)" }
      : { ok: false, reason: "unavailable", message: error.message };
  }
  const result = await m.backend.transact((tx) => m.bots.add(
    tx,
    { projectId, botId: me.id, username: me.username, name: [me.first_name, me.last_name].filter(Boolean).join(" "), note, tokenSealed: m.secrets.seal(token) },
    m.config.limits.bots,
  ));
  if (result.ok) return result;
  return result.reason === "duplicate"
    ? { ok: false, reason: "duplicate", message: DUPLICATE_MESSAGE }
    : { ok: false, reason: "limit_reached", message: limitReached("bots", m.config.limits.bots).message };
}

/** The API answer for a failed single connect. */
export function connectError(outcome: Exclude<ConnectOutcome, { ok: true }>, limit: number): ApiError {
  switch (outcome.reason) {
    case "malformed":
    case "rejected":
      return new ApiError(400, "invalid_request", `invalid request: body.token ${outcome.message}`, { details: [{ path: "body.token", message: outcome.message }] });
    case "duplicate":
      return new ApiError(409, "conflict", DUPLICATE_MESSAGE);
    case "limit_reached":
      return limitReached("bots", limit);
    case "unavailable":
      return new ApiError(502, "upstream_error", outcome.message);
  }
}
