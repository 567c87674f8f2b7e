// Where the contract can say what the server checks, it says exactly that (issue 29 item 11): the
// webhook URL and the own CSR were looser in the contract than in the server (`^https?://` let
// http:// and credentials through; the CSR pattern anchored only the header line), so generated
// clients and the conformance suite called values valid that the server always refused.
import { describe, expect, it } from "vitest";
import { ownCsrProblem } from "../../server/certificates/own-csr.ts";
import { webhookUrlProblem } from "../../server/webhooks/webhook-url.ts";
import { loadContract } from "./openapi.ts";
import { contractValidator, pointer } from "./validator.ts";

const doc = loadContract();
const validate = contractValidator(doc);
const body = (path: string) =>
  pointer("paths", path, "post", "requestBody", "content", "application/json", "schema");

describe("createWebhook url: the contract refuses what the server refuses (production mode)", () => {
  it.each([
    ["https://hooks.example.org/in", true],
    ["https://hooks.example.org:8443/a/b?x=1#frag", true],
    ["https://[2606:4700:4700::1111]/x", true],
    ["https://hooks.example.org", true],
    ["http://hooks.example.org/in", false],
    ["https://user:pw@hooks.example.org/", false],
    ["https://user@hooks.example.org/", false],
    ["ftp://hooks.example.org/", false],
  ])("%s: accepted = %s", (url, accepted) => {
    expect(webhookUrlProblem(url, false) === undefined).toBe(accepted);
    const errors = validate(body("/v1/webhooks"), { url });
    expect(errors.length === 0).toBe(accepted);
  });
});

describe("issueCertificate csr: the contract's pattern is the server's PEM shape", () => {
  const PEM_PROBLEM = /^must be one PEM certificate request/;
  it.each([
    [
      "-----BEGIN CERTIFICATE REQUEST-----\nMIIBSzCB8gIBADA=\n-----END CERTIFICATE REQUEST-----\n",
      true,
    ],
    [
      "-----BEGIN CERTIFICATE REQUEST-----\r\nMIIB\r\nSzCB\r\n-----END CERTIFICATE REQUEST-----",
      true,
    ],
    ["-----BEGIN CERTIFICATE REQUEST-----", false],
    [
      "-----BEGIN CERTIFICATE REQUEST-----\nnot base64 at all!\n-----END CERTIFICATE REQUEST-----\n",
      false,
    ],
    [
      "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\ntrailing",
      false,
    ],
    ["-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE-----\n", false],
  ])("%j: shape accepted = %s", async (csr, accepted) => {
    const problem = await ownCsrProblem(csr, ["a.example.com"]);
    expect(!PEM_PROBLEM.test(problem ?? "")).toBe(accepted);
    const errors = validate(body("/v1/certs/issue"), { domains: ["a.example.com"], csr });
    expect(errors.length === 0).toBe(accepted);
  });
});
