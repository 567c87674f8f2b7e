// `platform-admin suppressions ...`: the same list, block and lift as the API (decisions SU1,
// SU2), for an operator answering "why does bob get no mail?" without a key of the project.
import { isIP } from "node:net";
import { blockProblem } from "./handlers.ts";
import type { SuppressionFilter, SuppressionRecord, SuppressionRepository, SuppressionStream } from "./suppression-repository.ts";

export const suppressionUsage = `  suppressions list --project <id> [--address <a>] [--reason <bounced|complained|unsubscribed|manual>]
              [--stream <transactional|marketing>] [--scope <owner>] [--since <ISO time>] [--before <id>] [--limit <1-200>]
  suppressions add --project <id> <address> [--stream <all|marketing>] [--scope <owner>]
  suppressions remove --project <id> <suppression id>`;

export interface SuppressionFlags {
  address?: string;
  reason?: string;
  stream?: string;
  scope?: string;
  since?: string;
  before?: string;
  limit?: string;
}

const REASONS = ["bounced", "complained", "unsubscribed", "manual"] as const;

/** An address as the console takes it: one `@`, a local part and a domain with a dot, no spaces or controls. */
function addressProblem(a: string): string | undefined {
  const at = a.lastIndexOf("@");
  const domain = a.slice(at + 1);
  if (at < 1 || a.length > 254 || /[\s\p{Cc}<>]/u.test(a) || !domain.includes(".") || domain.startsWith(".") || domain.endsWith(".") || isIP(domain))
    return `${JSON.stringify(a)} is not an e-mail address`;
  return undefined;
}

function intArg(flag: string, raw: string | undefined, max: number, fail: (m: string) => Error): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1 || n > max) throw fail(`${flag} must be an integer from 1 to ${max}, got ${raw}`);
  return n;
}

const row = (s: SuppressionRecord) => [String(s.id), s.address, s.reason, s.stream, s.scope || "-", s.messageId ?? "-", new Date(s.createdAt).toISOString(), s.detail ?? ""];

/** Throws `fail(message)` for bad input (the console's UsageError); nothing is changed then. */
export async function runSuppressionCommand(
  repo: SuppressionRepository,
  action: string,
  args: string[],
  projectId: string,
  v: SuppressionFlags,
  fail: (message: string) => Error,
  table: (head: string[], rows: string[][]) => string,
): Promise<string> {
  switch (action) {
    case "list": {
      const filter: SuppressionFilter = { limit: intArg("--limit", v.limit, 200, fail) ?? 50, before: intArg("--before", v.before, Number.MAX_SAFE_INTEGER, fail) };
      if (v.address !== undefined) filter.address = v.address;
      if (v.reason !== undefined) {
        if (!(REASONS as readonly string[]).includes(v.reason)) throw fail(`--reason must be one of ${REASONS.join(", ")}`);
        filter.reason = v.reason as SuppressionFilter["reason"];
      }
      if (v.stream !== undefined) {
        if (v.stream !== "transactional" && v.stream !== "marketing") throw fail("--stream must be transactional or marketing (what a message of that stream would be blocked by)");
        filter.stream = v.stream;
      }
      if (v.scope !== undefined) filter.scope = v.scope;
      if (v.since !== undefined) {
        const since = Date.parse(v.since);
        if (Number.isNaN(since)) throw fail(`--since must be an ISO 8601 time, got ${v.since}`);
        filter.since = since;
      }
      const found = await repo.list(projectId, filter);
      return table(["id", "address", "reason", "stream", "scope", "message", "created", "detail"], found.map(row));
    }
    case "add": {
      const address = args[0];
      if (!address || args.length > 1) throw fail("suppressions add needs one address");
      const problem = addressProblem(address);
      if (problem) throw fail(problem);
      const stream = (v.stream ?? "all") as SuppressionStream;
      if (stream !== "all" && stream !== "marketing") throw fail("--stream must be all or marketing");
      const scope = v.scope ?? "";
      if (scope.length > 128) throw fail("--scope must be at most 128 characters");
      const rule = blockProblem(address, stream, scope);
      if (rule) throw fail(`${rule.path === "address" ? address : "--scope"}: ${rule.message}`);
      const s = await repo.add(projectId, { address, stream, scope });
      return `suppression ${s.id}: ${s.address} blocked (${s.stream}${s.scope ? ` for ${s.scope}` : ""}, reason ${s.reason})`;
    }
    case "remove": {
      const id = intArg("suppression id", args[0], Number.MAX_SAFE_INTEGER, fail);
      if (id === undefined || args.length > 1) throw fail("suppressions remove needs one suppression id (see suppressions list)");
      if (!(await repo.remove(projectId, id))) throw fail(`no suppression ${id} in project ${projectId}`);
      return `removed suppression ${id}: the next message to its address is sent`;
    }
    default:
      throw fail(`unknown command: suppressions ${action}\n\n${suppressionUsage}`);
  }
}
