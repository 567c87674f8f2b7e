// The documented post-processing steps, each proven on a small contract against a golden file.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { postprocess } from "../../scripts/openapi/postprocess.ts";
import { applyLinks } from "../../scripts/openapi/links.ts";

const fixture = (name: string) => new URL(`./fixtures/postprocess/${name}`, import.meta.url);
const input = () => JSON.parse(readFileSync(fixture("input.json"), "utf8"));

describe("openapi post-processing", () => {
  it.each([
    ["3.1.0", "expected-3.1.json"],
    ["3.0.0", "expected-3.0.json"],
  ])("turns extensions into webhooks, links and anyOf (OpenAPI %s)", (version, golden) => {
    const doc = { ...input(), openapi: version };
    const actual = JSON.stringify(postprocess(doc), null, 2) + "\n";
    // UPDATE_GOLDEN=1 re-records the golden files after an intended change.
    if (process.env.UPDATE_GOLDEN) writeFileSync(fixture(golden), actual);
    expect(actual).toBe(readFileSync(fixture(golden), "utf8"));
  });

  it("refuses a link to an operation that does not exist", () => {
    const doc = input();
    doc.paths["/v1/things"].post["x-platform-links"].deleteThing.operationId = "dropThing";
    expect(() => applyLinks(doc)).toThrow(/unknown operation dropThing/);
  });
});
