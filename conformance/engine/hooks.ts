// Implementation-specific setup without forking the suite, in the spirit of Dredd and Schemathesis
// hooks: a module whose default export may define beforeAll/afterAll and before/after per
// operationId (or `*` for every operation). `before` may return a replacement case.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Case, Exchange, Operation } from "./types.ts";

export interface Hooks {
  beforeAll?(): Promise<void> | void;
  afterAll?(): Promise<void> | void;
  before?: Record<string, (c: Case, op: Operation) => Promise<Case | void> | Case | void>;
  after?: Record<string, (ex: Exchange) => Promise<void> | void>;
}

export async function loadHooks(file: string | undefined, baseDir: string): Promise<Hooks> {
  if (!file) return {};
  const mod = await import(pathToFileURL(path.resolve(baseDir, file)).href);
  return (mod.default ?? mod) as Hooks;
}

export async function applyBefore(hooks: Hooks, op: Operation, c: Case): Promise<Case> {
  let current = c;
  for (const key of ["*", op.id]) {
    const fn = hooks.before?.[key];
    if (fn) current = (await fn(current, op)) ?? current;
  }
  return current;
}

export async function applyAfter(hooks: Hooks, ex: Exchange): Promise<void> {
  for (const key of ["*", ex.operation.id]) await hooks.after?.[key]?.(ex);
}
