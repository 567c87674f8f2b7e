// The DMARC policy (decision I3) on its own, table-driven: which verdict delivers, quarantines or
// rejects, and the reply text of a rejection. The same policy over real SMTP, with the platform's
// DNS publishing the records, is dmarc-policy.test.ts.
import { describe, expect, it } from "vitest";
import { dmarcAction, type DmarcAction } from "./dmarc-policy.ts";
import type { DmarcVerdict } from "./trace-headers.ts";

const deliver: DmarcAction = { action: "deliver" };
const quarantine: DmarcAction = { action: "quarantine" };
const reject = (domain: string): DmarcAction => ({
  action: "reject",
  text: `5.7.1 message refused: its From domain ${domain} fails DMARC (no SPF or DKIM pass aligned with it) and publishes p=reject`,
});

describe("dmarcAction", () => {
  it.each<[string, DmarcVerdict, DmarcAction]>([
    ["a pass, even of a p=reject domain", { result: "pass", domain: "bank.example", policy: "reject" }, deliver],
    ["no policy published", { result: "none", domain: "bank.example" }, deliver],
    ["a temporary DNS error", { result: "temperror", domain: "bank.example", policy: "reject" }, deliver],
    ["a broken record", { result: "permerror", domain: "bank.example", policy: "quarantine" }, deliver],
    ["a fail under p=none", { result: "fail", domain: "bank.example", policy: "none" }, deliver],
    ["a fail without a policy", { result: "fail", domain: "bank.example" }, deliver],
    ["a fail under an unknown policy", { result: "fail", domain: "bank.example", policy: "Reject" }, deliver],
    ["a fail under p=quarantine", { result: "fail", domain: "bank.example", policy: "quarantine" }, quarantine],
    ["a From of several domains (not evaluated)", { result: "skipped", reason: "multiple-author-domains" }, quarantine],
    ["a skipped verdict naming a policy", { result: "skipped", domain: "bank.example", policy: "none" }, quarantine],
    ["a fail under p=reject", { result: "fail", domain: "bank.example", policy: "reject" }, reject("bank.example")],
    ["a fail under p=reject with no domain named", { result: "fail", policy: "reject" }, reject("")],
  ])("%s", (_name, verdict, want) => {
    expect(dmarcAction(verdict)).toEqual(want);
  });
});
