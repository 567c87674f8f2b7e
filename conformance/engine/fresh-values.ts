// Creates must not collide with what exists. A generator biased towards small values, the
// contract's examples and the fixtures all propose the same names again and again, and a server
// rightly answers 409; then a run "passes" without ever reaching the create's success path. So a
// positive POST body's string properties are made unique per run: a value already sent (or named
// by a fixture) is varied in its last characters until the schema still accepts it and it is new.
import { validate } from "./validator.ts";
import type { Case, Operation } from "./types.ts";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";
const MAX_TRIES = 400;

export class FreshValues {
  private readonly used = new Map<string, Set<string>>();
  private readonly reserved = new Set<string>();

  /** Every fixture value of the config (global and per operation) is taken: never a name for a new thing. */
  constructor(fixtures: Record<string, unknown>[]) {
    const add = (v: unknown) => {
      if (typeof v === "string") {
        this.reserved.add(v);
        // An address fixture also takes its local part and its domain as names.
        for (const part of v.split("@")) this.reserved.add(part);
      } else if (Array.isArray(v)) v.forEach(add);
    };
    for (const set of fixtures) Object.values(set).forEach(add);
  }

  /** The case, with every reused string property of its body (other than the fixtures `values` names) replaced by a fresh valid one. */
  freshen(op: Operation, c: Case, values: Record<string, unknown>): Case {
    if (op.method !== "POST" || c.mode !== "positive" || !op.body || !c.body || typeof c.body !== "object" || Array.isArray(c.body)) return c;
    const props: Record<string, any> = (op.body.schema as any)?.properties ?? {};
    const body: Record<string, unknown> = { ...(c.body as Record<string, unknown>) };
    for (const [name, value] of Object.entries(body)) {
      const schema = Object.hasOwn(props, name) ? props[name] : undefined;
      if (typeof value !== "string" || !schema || Object.hasOwn(values, name) || schema.enum || "const" in schema || schema.format === "date-time") continue;
      const seen = this.seen(op, name);
      if (seen.has(value) || this.reserved.has(value)) {
        const fresh = this.variant(value, schema, seen);
        if (fresh !== undefined) body[name] = fresh;
      }
      seen.add(body[name] as string);
    }
    return { ...c, body };
  }

  private seen(op: Operation, name: string): Set<string> {
    const key = `${op.id}/${name}`;
    let set = this.used.get(key);
    if (!set) this.used.set(key, (set = new Set()));
    return set;
  }

  /** Same length (so length boundaries stay boundaries), last then first characters varied. */
  private variant(value: string, schema: unknown, seen: Set<string>): string | undefined {
    if (!value.length) return undefined;
    let tries = 0;
    for (let width = 1; width <= Math.min(4, value.length); width++) {
      for (let i = 0; i < ALPHABET.length ** width && tries < MAX_TRIES; i++, tries++) {
        const suffix = toBase(i, width);
        for (const candidate of [value.slice(0, value.length - width) + suffix, suffix + value.slice(width)]) {
          if (!seen.has(candidate) && !this.reserved.has(candidate) && validate(schema as object, candidate).valid) return candidate;
        }
      }
    }
    return undefined;
  }
}

function toBase(n: number, width: number): string {
  let out = "";
  for (let i = 0; i < width; i++) {
    out = ALPHABET[n % ALPHABET.length] + out;
    n = Math.floor(n / ALPHABET.length);
  }
  return out;
}
