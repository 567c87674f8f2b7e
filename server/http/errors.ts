// Shorthands for the decided error answers (docs/decisions.md, "Errors"). Another project's
// resource answers exactly like a missing one, so existence never leaks.
import { ApiError } from "../../generated/server/errors.ts";
import { CapReachedError } from "../db/capped-insert.ts";

export function notFound(what: string): ApiError {
  return new ApiError(404, "not_found", `${what} not found`);
}

export interface FieldProblem {
  path: string;
  message: string;
}

/** With `details` when the conflict is about particular fields. */
export function conflict(message: string, details?: FieldProblem[]): ApiError {
  return new ApiError(409, "conflict", message, details ? { details } : undefined);
}

export function limitReached(what: string, cap: number): ApiError {
  return new ApiError(409, "limit_reached", `the project already has the maximum of ${cap} ${what}`);
}

/** Awaits a capped insert (server/db/capped-insert.ts) and turns its cap error into the 409. */
export async function withinCap<T>(insert: Promise<T>, what: string): Promise<T> {
  try {
    return await insert;
  } catch (error) {
    if (error instanceof CapReachedError) throw limitReached(what, error.cap);
    throw error;
  }
}

/** A rule the schema cannot express, reported like a schema violation (400 with details). */
export function invalid(path: string, message: string): ApiError {
  return invalidFields([{ path, message }]);
}

/** Several such problems at once. */
export function invalidFields(problems: FieldProblem[]): ApiError {
  const text = problems.map((p) => `${p.path} ${p.message}`).join("; ");
  return new ApiError(400, "invalid_request", `invalid request: ${text}`, { details: problems });
}
