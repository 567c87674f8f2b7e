// Values deeper than the generator's depth limit are kept small, never cut to null where the schema
// requires something else: Stripe's responses (charge, invoice, payment_intent) nest required
// objects and expandable `string | object` fields past it, and every draw used to be invalid, so
// the fixture could not answer them (16 of the suite's own failures on Stripe's contract).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbitraryFor } from "./schema-arbitrary.ts";
import { validate } from "./validator.ts";

/** `levels` nested objects, each requiring a string list, a nested record and the next level. */
function chain(levels: number): object {
  let inner: object = { type: "object", required: ["id"], properties: { id: { type: "string" } } };
  for (let i = 0; i < levels; i++) {
    inner = {
      type: "object",
      required: ["id", "fields_due", "owner", "next"],
      properties: {
        id: { type: "string" },
        fields_due: { type: "array", items: { type: "string" } },
        owner: { type: "object", required: ["name"], properties: { name: { type: "string" }, note: { type: "string", nullable: false } } },
        // Stripe's expandable field: an id, or the object it names
        next: { anyOf: [{ type: "string", maxLength: 5000 }, inner] },
        optional: inner,
      },
    };
  }
  return inner;
}

describe("deep schemas", () => {
  it.each([4, 8])("draws valid values of a %d-level chain of required objects", (levels) => {
    const schema = chain(levels);
    const values = fc.sample(arbitraryFor(schema as never, {}, 0), { seed: 3, numRuns: 60 });
    expect(values.filter((v) => !validate(schema as never, v).valid)).toEqual([]);
  });

  it("draws valid values of a cyclic schema whose cycle goes through an expandable field", () => {
    const account: any = { type: "object", required: ["id", "parent", "children"], properties: { id: { type: "string" } } };
    account.properties.parent = { anyOf: [{ type: "string" }, account] };
    account.properties.children = { type: "array", items: account };
    const values = fc.sample(arbitraryFor(account, {}, 0), { seed: 5, numRuns: 60 });
    expect(values.filter((v) => !validate(account, v).valid)).toEqual([]);
  });
});

describe("alternatives", () => {
  it("a branch that cannot be drawn gives way to one that can (Box's pattern '.^'), instead of failing every draw", () => {
    const schema = { anyOf: [{ type: "string", pattern: ".^" }, { type: "integer", minimum: 1, maximum: 9 }] };
    const values = fc.sample(arbitraryFor(schema as never, {}, 0), { seed: 11, numRuns: 40 });
    expect(values.every((v) => Number.isInteger(v))).toBe(true);
    expect(values.filter((v) => !validate(schema as never, v).valid)).toEqual([]);
  });

  it("a draw whose branch works is unchanged by the fallback", () => {
    const schema = { oneOf: [{ type: "string", maxLength: 3 }, { type: "boolean" }] };
    const a = fc.sample(arbitraryFor(schema as never, {}, 0), { seed: 5, numRuns: 30 });
    const b = fc.sample(fc.oneof(arbitraryFor({ type: "string", maxLength: 3 } as never, {}, 0), arbitraryFor({ type: "boolean" } as never, {}, 0)), { seed: 5, numRuns: 30 });
    expect(a).toEqual(b);
  });
});
