// The gate on the real contract: the current document against the latest recorded release, and
// a deliberately broken copy of it, which must fail with the rule and the pointer named.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareDocuments } from "../../scripts/compat/compare.ts";
import { listReleases, readRelease } from "../../scripts/compat/releases.ts";
import { root } from "./openapi.ts";

const current = () =>
  JSON.parse(readFileSync(join(root, "generated/openapi/openapi-3.0.json"), "utf8"));

describe("compatibility gate on the real contract", () => {
  it("1.0.0 is recorded and the current contract has no breaking change against the latest release", () => {
    const releases = listReleases(root);
    expect(releases[0]).toBe("1.0.0");
    const findings = compareDocuments(readRelease(root, releases[releases.length - 1]), current());
    expect(findings.filter((f) => f.level === "ERR")).toEqual([]);
  });

  it("a broken copy fails with each rule and pointer named", () => {
    const released = current();
    const broken = current();
    const delivered = broken.components.schemas.MailDeliveredData;
    const requiredField = delivered.required[0];
    delete delivered.properties[requiredField];
    broken.components.schemas.CreateMailboxRequest.properties.password.minLength = 12;
    broken.paths["/v1/groups"].get["x-platform-scope"] = "mail:read";
    delete broken.paths["/v1/webhooks"].get;
    const breaking = compareDocuments(released, broken).filter((f) => f.level === "ERR");
    const named = breaking.map((f) => `${f.id} ${f.pointer}`);
    // A webhook payload is sent by the platform: a required field removed breaks its receivers.
    expect(named).toContain(
      `response-property-removed-required /x-webhooks/mail.delivered/post/requestBody/content/application~1json/schema/properties/data/properties/${requiredField}`,
    );
    expect(named).toContain(
      "request-property-min-length-increased /paths/~1v1~1mailboxes/post/requestBody/content/application~1json/schema/properties/password",
    );
    expect(named).toContain("platform-scope-changed /paths/~1v1~1groups/get/x-platform-scope");
    expect(named).toContain("api-removed-without-deprecation /paths/~1v1~1webhooks/get");
  });

  it("the 3.1 and 3.0 documents generated from the same spec compare equal, both ways", () => {
    const v31 = JSON.parse(readFileSync(join(root, "generated/openapi/openapi.json"), "utf8"));
    expect(compareDocuments(current(), v31)).toEqual([]);
    expect(compareDocuments(v31, current())).toEqual([]);
  });

  it("npm run compat exits 0 and prints the summary on the committed contract", () => {
    const out = execFileSync(process.execPath, ["scripts/compat/cli.ts"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(out).toMatch(/^compat: \d+ change\(s\) against release \d+\.\d+\.\d+, 0 breaking/);
  });
});
