// The contract (spec/dns/dns-record.tsp) and the server's record parsers must agree on every
// record, both ways: what the schema admits the server stores (else the conformance suite's
// positive_data_acceptance fails, and clients meet 400s the contract never warned of), and what the
// server would store the schema admits (else the parsers guard nothing the HTTP layer lets through).
// The schema is checked exactly as the HTTP layer checks it: the generated validator on the
// generated component schemas.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { components } from "../../generated/server/operations.ts";
import { createValidatorCompiler } from "../../generated/server/validation.ts";
import contract from "../../generated/openapi/openapi.json" with { type: "json" };
import { dereference } from "../../conformance/engine/dereference.ts";
import { arbitraryFor } from "../../conformance/engine/schema-arbitrary.ts";
import { DNS_RECORD_TYPES } from "../../server/dns/record-data.ts";
import {
  checkNameConflicts,
  validateRecord,
  type RecordInput,
} from "../../server/dns/validate-record.ts";

const ZONE = "example.test";
const compile = createValidatorCompiler(components);
const schemaValidate = compile({
  schema: { $ref: "components.json#/$defs/CreateDnsRecordRequest" },
  httpPart: "body",
  method: "POST",
  url: "/v1/dns/{zone}/records",
}) as (data: unknown) => { value?: unknown; error?: Error };

const admitted = (body: RecordInput) => schemaValidate(structuredClone(body)).error === undefined;
// The server's own verdict: syntax, then the zone-dependent rules that answer 409 instead of 400.
function stored(body: RecordInput): "stored" | "invalid" | "conflict" {
  const result = validateRecord(body, ZONE);
  if (!result.ok) return "invalid";
  return checkNameConflicts(result.record, [], ZONE).length ? "conflict" : "stored";
}

const schemas = dereference(contract).components.schemas;
const variantOf = (type: string) =>
  schemas.CreateDnsRecordRequest.discriminator.mapping[type].split("/").pop() as string;

// Characters where parsers and patterns tend to disagree: separators, quotes, escapes, case,
// Unicode spaces and line separators, control characters, the IPv6 zone index.
const tricky = fc.constantFrom(
  ...'aZ09-_.: \t"%@é\u2028\u00a0\u0000\u007f/;='.split(""),
  "mailto:",
  "https://",
  "..",
  " .",
);
function mutate(value: string): fc.Arbitrary<string> {
  const edit = fc.tuple(
    fc.nat({ max: value.length }),
    fc.nat({ max: 3 }),
    fc.oneof(tricky, fc.constant("")),
  );
  return fc
    .array(edit, { minLength: 1, maxLength: 3 })
    .map((edits) =>
      edits.reduce((v, [at, cut, insert]) => v.slice(0, at) + insert + v.slice(at + cut), value),
    );
}

describe.each(DNS_RECORD_TYPES)("%s records: contract and server agree", (type) => {
  const valid = arbitraryFor(schemas[variantOf(type)]) as fc.Arbitrary<RecordInput>;

  it("every record the contract admits is stored, or refused only for the zone (409)", () => {
    fc.assert(
      fc.property(valid, (body) => {
        fc.pre(admitted(body));
        expect(stored(body), JSON.stringify(body)).not.toBe("invalid");
      }),
      { numRuns: 400, seed: 42 },
    );
  });

  it("near-valid records: the contract refuses exactly what the server refuses", () => {
    const nearData = valid.chain((body) =>
      mutate(String(body.data)).map((data) => ({ ...body, data })),
    );
    const nearName = valid.chain((body) =>
      mutate(String(body.name)).map((name) => ({ ...body, name })),
    );
    fc.assert(
      fc.property(fc.oneof(nearData, nearName), (body) => {
        expect(stored(body) !== "invalid", JSON.stringify(body)).toBe(admitted(body));
      }),
      { numRuns: 1500, seed: 7 },
    );
  });
});

describe("hand-picked edges agree", () => {
  const edges: RecordInput[] = [
    { type: "A", name: "x", data: "01.2.3.4" },
    { type: "AAAA", name: "x", data: "::ffff:192.0.2.1" },
    { type: "AAAA", name: "x", data: "1:2:3:4:5:6:7::" },
    { type: "AAAA", name: "x", data: "fe80::1%eth0" },
    { type: "MX", name: "@", data: "1.2.3.4.", priority: 1 },
    { type: "MX", name: "@", data: "1.2.3.4.5", priority: 1 },
    { type: "CNAME", name: "c", data: "_x._y.test." },
    { type: "SRV", name: "_a._b", data: "0 0 0 ." },
    { type: "SRV", name: "_a._b", data: "0 0 0 1.2.3.4" },
    { type: "CAA", name: "@", data: '0 issue "a\u2028b"' },
    { type: "CAA", name: "@", data: '0 iodef "mailto:"' },
    { type: "CAA", name: "@", data: "0 issue a\u00a0b" },
    { type: "TXT", name: "x", data: "\u2028" },
  ];
  it.each(edges.map((e) => [JSON.stringify(e), e] as const))("%s", (_, body) => {
    expect(stored(body) !== "invalid").toBe(admitted(body));
  });
});
