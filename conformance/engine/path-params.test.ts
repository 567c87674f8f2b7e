// Path parameters are never empty, whatever their schema says: an unknown format constrains
// nothing, and an empty segment would send the request to another route (Twilio's
// `/AvailablePhoneNumbers/{CountryCode}/Local.json` with format `iso-country-code`).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { positiveCaseArb } from "./case-arbitrary.ts";
import { coverageCases } from "./coverage.ts";
import { buildContract } from "./load-contract.ts";

const contract = buildContract({
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {
    "/Accounts/{AccountSid}/AvailablePhoneNumbers/{CountryCode}/Local.json": {
      get: {
        operationId: "listLocal",
        parameters: [
          { name: "AccountSid", in: "path", required: true, schema: { type: "string", pattern: "^AC[0-9a-fA-F]{32}$" } },
          { name: "CountryCode", in: "path", required: true, schema: { type: "string", format: "iso-country-code" } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
  },
});
const op = contract.operations[0];

describe("path parameters", () => {
  it("are never generated empty, also under an unknown format", () => {
    const cases = fc.sample(positiveCaseArb(op), { seed: 7, numRuns: 200 });
    expect(cases.filter((c) => c.pathParams.CountryCode === "")).toEqual([]);
    expect(cases.every((c) => String(c.pathParams.CountryCode).length >= 1)).toBe(true);
  });

  it("coverage's minimal values are not empty segments either", () => {
    for (const c of coverageCases(op, "positive", 3)) expect(String(c.pathParams.CountryCode)).not.toBe("");
  });
});
