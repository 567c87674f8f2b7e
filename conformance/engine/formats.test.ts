// OpenAPI's own formats are checked; a format the suite does not know is noted once (the CLI
// prints them together) instead of one ajv line per schema that uses it.
import { afterEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { arbitraryFor } from "./schema-arbitrary.ts";
import { knownFormats, unknownFormats, validate } from "./validator.ts";

afterEach(() => vi.restoreAllMocks());

describe("formats", () => {
  it.each([
    [{ type: "integer", format: "int32" }, 2 ** 31 - 1, true],
    [{ type: "integer", format: "int32" }, 2 ** 31, false],
    [{ type: "integer", format: "int32" }, -(2 ** 31), true],
    [{ type: "integer", format: "int64" }, 2 ** 40, true],
    [{ type: "number", format: "double" }, 1.5, true],
    [{ type: "string", format: "byte" }, "aGVsbG8=", true],
    [{ type: "string", format: "byte" }, "not base64!", false],
    [{ type: "string", format: "password" }, "anything", true],
    // common formats of public contracts (Stripe, OpenAI), checked rather than reported unknown
    [{ type: "integer", format: "unix-time" }, 1650000000, true],
    [{ type: "integer", format: "unixtime" }, 1650000000, true],
    [{ type: "string", format: "decimal" }, "12.50", true],
    [{ type: "string", format: "decimal" }, "twelve", false],
    [{ type: "integer", format: "uint8" }, 256, false],
    [{ type: "integer", format: "int16" }, -32768, true],
    [{ type: "string", format: "char" }, "ab", false],
  ])("%j accepts %j: %s", (schema, value, ok) => {
    expect(validate(schema, value).valid).toBe(ok);
  });

  it("the registry's common formats are known", () => {
    for (const format of ["unix-time", "unixtime", "decimal", "int8", "uint64", "char", "http-date", "idn-email", "iri", "commonmark"]) validate({ type: "string", format }, "x");
    expect(unknownFormats().filter((f) => !["iso-country-code"].includes(f))).toEqual([]);
  });

  it("an unknown format is noted once and printed by nobody", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    for (let i = 0; i < 5; i++) validate({ type: "string", format: "iso-country-code", maxLength: 10 + i }, "AZ");
    expect(warn).not.toHaveBeenCalled();
    expect(unknownFormats().filter((f) => f === "iso-country-code")).toEqual(["iso-country-code"]);
  });

  // A format the validator checks but the generators do not draw makes every value of such a
  // field invalid: the case is dropped, and the fixture cannot answer (GitHub's root document).
  it.each(knownFormats().flatMap((f) => (f.type === "number" ? [{ type: "integer", format: f.name }, { type: "number", format: f.name }] : [{ type: "string", format: f.name }])))("draws values of %j that the validator accepts", (schema) => {
    const values = fc.sample(arbitraryFor(schema, {}, 0), { seed: 7, numRuns: 300 });
    const refused = values.filter((v) => !validate(schema, v).valid);
    expect(refused.slice(0, 3)).toEqual([]);
  });
});
