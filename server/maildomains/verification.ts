// Who owns a mail domain (decisions O1-O4). A claim proves control by hosting: the name's zone is
// hosted here and bound to the claiming project (the records are ours to publish); or by DNS: its
// own verification token is found in a TXT record at the name, looked up through the configured
// resolver (the server's own DNS server by default). A name in a zone another project hosts here
// can be claimed by that project only. The first claim to prove control owns the name and ends
// the other open claims; an owner whose proof is gone is `lost` and stops sending and receiving.
// Every status these checks move is a `maildomain.status_changed` event to the claim's project,
// written by the repository in the same transaction as the move (decision O7, status-event.ts).
import type { DnsResolver } from "../dns/resolver.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { MailDomainRecord, MailDomainRepository, ProofMethod } from "./maildomain-repository.ts";
import { VERIFICATION_PREFIX } from "./required-records.ts";

export interface VerificationDeps {
  mailDomains: MailDomainRepository;
  zones: DnsRecordRepository;
  resolver: DnsResolver;
  now: () => number;
}

export type Proof =
  | { kind: "proven"; method: ProofMethod }
  /** The lookups answered, and the token is not there. */
  | { kind: "absent"; reason: string }
  /** The name lies in a zone another project hosts here: this claim can never be proven. */
  | { kind: "hosted-elsewhere"; reason: string }
  /** The resolver did not answer (timeout, refusal): nothing is concluded from it. */
  | { kind: "unknown"; reason: string };

export const verificationRecord = (claim: Pick<MailDomainRecord, "name" | "verificationToken">) =>
  `TXT ${claim.name} "${VERIFICATION_PREFIX}${claim.verificationToken}"`;

export const hostedElsewhereReason = (name: string, zone: string) =>
  `${name} lies in the zone ${zone}, which another project hosts here; only that project can connect it`;

/** The zone another project hosts here that contains `name`, if any (the most specific zone decides). */
export async function zoneOfAnotherProject(zones: DnsRecordRepository, projectId: string, name: string): Promise<string | undefined> {
  const zone = await zones.findZoneForName(name);
  return zone?.projectId && zone.projectId !== projectId ? zone.name : undefined;
}

export async function findProof(deps: Pick<VerificationDeps, "zones" | "resolver">, claim: MailDomainRecord): Promise<Proof> {
  const zone = await deps.zones.findZoneForName(claim.name);
  if (zone?.projectId === claim.projectId) return { kind: "proven", method: "hosting" };
  if (zone?.projectId) return { kind: "hosted-elsewhere", reason: hostedElsewhereReason(claim.name, zone.name) };
  let txt: string[];
  try {
    txt = await deps.resolver.resolveTxtJoinedOrEmpty(claim.name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { kind: "unknown", reason: `the DNS lookup of ${claim.name} got no answer (${code}); the verification record to publish: ${verificationRecord(claim)}` };
  }
  if (txt.includes(`${VERIFICATION_PREFIX}${claim.verificationToken}`)) return { kind: "proven", method: "dns" };
  return { kind: "absent", reason: `the verification record is not published: ${verificationRecord(claim)}` };
}

/**
 * Checks a claim now and records what was found; answers the claim as it stands afterwards. An
 * ended claim is left alone (connecting again reopens it). When the claim proves control while
 * another claim owns the name, that owner's proof is checked at once: an owner whose proof is gone
 * loses the name to the claim that has it.
 */
export async function verifyClaim(deps: VerificationDeps, claim: MailDomainRecord): Promise<{ claim: MailDomainRecord; found: Proof["kind"] | "skipped" }> {
  if (claim.status === "ended") return { claim, found: "skipped" };
  const at = new Date(deps.now()).toISOString();
  const proof = await findProof(deps, claim);
  switch (proof.kind) {
    case "unknown":
      // One failed lookup must not take sending away from an owner: keep the state, retry later.
      if (claim.status !== "verified") await deps.mailDomains.markUnproven(claim.id, claim.status, proof.reason, at, { expected: claim.status });
      break;
    case "hosted-elsewhere":
      await deps.mailDomains.markUnproven(claim.id, "ended", proof.reason, at, { expected: claim.status });
      break;
    case "absent":
      await deps.mailDomains.markUnproven(claim.id, claim.status === "verified" || claim.status === "lost" ? "lost" : "pending", proof.reason, at, { expected: claim.status });
      break;
    case "proven":
      if (await deps.mailDomains.takeOwnership(claim.id, proof.method, at)) break;
      if (await ownerLostItsProof(deps, claim.name, at)) {
        if (await deps.mailDomains.takeOwnership(claim.id, proof.method, at)) break;
      }
      await deps.mailDomains.markUnproven(claim.id, claim.status === "lost" ? "lost" : "pending",
        "another project owns this domain and its proof still holds; this claim takes over if that proof goes", at, { expected: claim.status });
      break;
  }
  return { claim: (await deps.mailDomains.getById(claim.id)) ?? claim, found: proof.kind };
}

/** Re-checks the current owner of `name` (not recursively); true when it no longer owns it. */
async function ownerLostItsProof(deps: VerificationDeps, name: string, at: string): Promise<boolean> {
  const owner = await deps.mailDomains.owner(name);
  if (!owner) return true;
  const proof = await findProof(deps, owner);
  if (proof.kind === "absent") await deps.mailDomains.markUnproven(owner.id, "lost", proof.reason, at, { expected: "verified" });
  else if (proof.kind === "hosted-elsewhere") await deps.mailDomains.markUnproven(owner.id, "ended", proof.reason, at, { expected: "verified" });
  else return false;
  return true;
}
