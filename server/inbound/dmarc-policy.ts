// What the receiving side does with a message whose From domain fails DMARC (decision I3): the
// domain's owner published what to do with mail that claims its name without its SPF or DKIM,
// and the listener does it. `reject`: refused at the end of DATA with 550 5.7.1, so the forger's
// MTA bounces it and nothing is stored. `quarantine`: stored, marked, and the mark shown by the
// API (`quarantined`) and webmail. A From that names no single domain cannot be evaluated at all
// (RFC 9989 §5.3.1; §11.5 calls such mail suspicious): marked too, or `From: ceo@bank, x@other`
// would walk past any policy.
import type { DmarcVerdict } from "./trace-headers.ts";

export type DmarcAction = { action: "deliver" } | { action: "quarantine" } | { action: "reject"; text: string };

export function dmarcAction(verdict: DmarcVerdict): DmarcAction {
  if (verdict.result === "skipped") return { action: "quarantine" };
  if (verdict.result !== "fail") return { action: "deliver" };
  if (verdict.policy === "reject") {
    return { action: "reject", text: `5.7.1 message refused: its From domain ${verdict.domain ?? ""} fails DMARC (no SPF or DKIM pass aligned with it) and publishes p=reject` };
  }
  return verdict.policy === "quarantine" ? { action: "quarantine" } : { action: "deliver" };
}
