// How failures of the messenger platform reach API clients (docs/decisions.md B5): a token the
// platform does not accept is the client's mistake (400 naming the field, or 409 for a stored
// token revoked since); the platform unreachable, answering 5xx or refusing a call we built is
// 502 `upstream_error` with the platform's description, so the client can tell it from our bugs.
import { ApiError } from "../../generated/server/errors.ts";
import { BotApiFailure } from "../adapters/bot-api.ts";
import { invalid } from "../http/errors.ts";

export function upstreamError(message: string): ApiError {
  return new ApiError(502, "upstream_error", message);
}

/** For a token given in the request body at `path`. */
export function tokenFailure(error: unknown, path: string): ApiError {
  if (error instanceof BotApiFailure && error.kind === "unauthorized") {
    return invalid(path, "is not accepted by the messenger platform (revoked, or never issued)");
  }
  return platformFailure(error);
}

/** For a bot already connected, whose stored token is used. */
export function storedTokenFailure(error: unknown): ApiError {
  if (error instanceof BotApiFailure && error.kind === "unauthorized") {
    return new ApiError(409, "conflict", "the messenger platform no longer accepts this bot's token (revoked); the bot cannot be reached");
  }
  return platformFailure(error);
}

export function platformFailure(error: unknown): ApiError {
  if (error instanceof BotApiFailure) return upstreamError(error.message);
  throw error;
}
