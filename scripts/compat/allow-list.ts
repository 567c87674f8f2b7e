// Accepting a known break on purpose: an allow-list file (YAML or JSON) of entries
//   - rule: request-property-max-length-decreased      # the rule id (required)
//     operation: POST /v1/things                       # as the gate names it (required; "*" for any)
//     reason: agreed with the two clients on 2026-11-28 # why (required: a team must say why)
//     pointer: /paths/...                               # optional: only this place
// A matching finding is still printed, marked allowed with its reason, and does not fail the gate.
// An entry that matches nothing is reported (stale entries hide the next real break).
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { Finding } from "./compare.ts";
import type { Reported } from "./formats.ts";
import { LoadError } from "./load.ts";
import { ruleOf } from "./rules.ts";

export interface AllowEntry {
  rule: string;
  operation: string;
  reason: string;
  pointer?: string;
}

export function readAllowList(file: string): AllowEntry[] {
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new LoadError(`cannot read allow-list ${file}: ${(e as Error).message.split("\n")[0]}`);
  }
  const list = Array.isArray(raw) ? raw : (raw as { allow?: unknown } | null)?.allow;
  if (!Array.isArray(list))
    throw new LoadError(`allow-list ${file}: expected a list of entries (or { allow: [...] })`);
  return list.map((e: any, i: number) => {
    const where = `allow-list ${file}, entry ${i + 1}`;
    const rule = e?.rule ?? e?.id;
    if (typeof rule !== "string" || !rule)
      throw new LoadError(`${where}: "rule" (a rule id) is required`);
    try {
      ruleOf(rule);
    } catch {
      throw new LoadError(`${where}: ${rule} is not a rule of the gate (scripts/compat/rules.ts)`);
    }
    if (typeof e.operation !== "string" || !e.operation)
      throw new LoadError(`${where}: "operation" is required (e.g. "POST /v1/things", or "*")`);
    if (typeof e.reason !== "string" || !e.reason.trim())
      throw new LoadError(`${where}: "reason" is required: say why the break is accepted`);
    if (e.pointer !== undefined && typeof e.pointer !== "string")
      throw new LoadError(`${where}: "pointer" must be a JSON pointer string`);
    return { rule, operation: e.operation, reason: e.reason.trim(), pointer: e.pointer };
  });
}

const matches = (e: AllowEntry, f: Finding) =>
  e.rule === f.id &&
  (e.operation === "*" || e.operation === f.operation) &&
  (e.pointer === undefined || e.pointer === f.pointer);

/** The findings with their allowances, and the entries that matched none. */
export function applyAllowList(
  findings: Finding[],
  entries: AllowEntry[],
): { findings: Reported[]; unused: AllowEntry[] } {
  const used = new Set<AllowEntry>();
  const out = findings.map((f) => {
    const e = entries.find((x) => matches(x, f));
    if (!e) return f;
    used.add(e);
    return { ...f, allowed: e.reason };
  });
  return { findings: out, unused: entries.filter((e) => !used.has(e)) };
}
