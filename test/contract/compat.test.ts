// The gate on the real contract: the current document against the latest recorded release, and
// a deliberately broken copy of it, which must fail with the rule and the pointer named.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareContracts } from "../../scripts/compat/compare.ts";
import { listReleases, readRelease } from "../../scripts/compat/releases.ts";
import { root } from "./openapi.ts";

const current = () =>
  JSON.parse(readFileSync(join(root, "generated/openapi/openapi-3.0.json"), "utf8"));

describe("compatibility gate on the real contract", () => {
  it("1.0.0 is recorded and the current contract has no breaking change against the latest release", () => {
    const releases = listReleases(root);
    expect(releases[0]).toBe("1.0.0");
    const findings = compareContracts(readRelease(root, releases[releases.length - 1]), current());
    expect(findings.filter((f) => f.verdict === "breaking")).toEqual([]);
  });

  it("a broken copy fails with each rule and pointer named", () => {
    const released = current();
    const broken = current();
    delete broken.components.schemas.MailDeliveredData.properties.relay;
    broken.components.schemas.CreateMailboxRequest.properties.password.minLength = 12;
    broken.paths["/v1/groups"].get["x-platform-scope"] = "mail:read";
    delete broken.paths["/v1/webhooks"].get;
    const breaking = compareContracts(released, broken).filter((f) => f.verdict === "breaking");
    const named = breaking.map((f) => `${f.rule} ${f.pointer}`);
    expect(named).toContain(
      "response-property-removed /paths/~1x-webhooks~1mail.delivered/post/responses/200/content/application~1json/schema/properties/data/properties/relay",
    );
    expect(
      named.some((n) =>
        n.startsWith(
          "min-length-changed /paths/~1v1~1mailboxes/post/requestBody/content/application~1json/schema/properties/password",
        ),
      ),
    ).toBe(true);
    expect(named).toContain("scope-changed /paths/~1v1~1groups/get/x-platform-scope");
    expect(named).toContain("operation-removed /paths/~1v1~1webhooks/get");
  });

  it("npm run compat exits 0 and prints the summary on the committed contract", () => {
    const out = execFileSync(process.execPath, ["scripts/compat/cli.ts"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(out).toMatch(/^compat: \d+ change\(s\) against release \d+\.\d+\.\d+, 0 breaking/);
  });
});
