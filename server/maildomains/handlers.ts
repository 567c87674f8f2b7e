// Mail domains: connect (DKIM keys, required records, auto-publish into a hosted zone, ownership
// check), list, get. Connecting again is how a project moves forward (decision O5): it publishes
// what can be published now, checks ownership now, and answers the current state.
import type { MailDomainsHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { Backend } from "../db/backend.ts";
import type { DnsResolver } from "../dns/resolver.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { Limits } from "../config.ts";
import { conflict, notFound, withinCap } from "../http/errors.ts";
import type { Clock } from "../jobs/clock.ts";
import { generateDkimKeys, newVerificationToken } from "./dkim.ts";
import type { MailDomainRecord, MailDomainRepository } from "./maildomain-repository.ts";
import { publishRecords } from "./publish-records.ts";
import { checkRecords } from "./record-check.ts";
import { requiredRecords } from "./required-records.ts";
import { ensureScheduled } from "./verification-jobs.ts";
import { hostedElsewhereReason, verifyClaim, zoneOfAnotherProject } from "./verification.ts";

export interface MailDomainDeps {
  mailDomains: MailDomainRepository;
  zones: DnsRecordRepository;
  resolver: DnsResolver;
  backend: Backend;
  clock: Clock;
  mailHost: string;
}

/** The deps out of the services (the API, the demo and test tenants connect domains alike). */
export const mailDomainDeps = (s: Omit<MailDomainDeps, "mailHost"> & { config: { mailHost: string } }): MailDomainDeps => ({
  mailDomains: s.mailDomains, zones: s.zones, resolver: s.resolver, backend: s.backend, clock: s.clock, mailHost: s.config.mailHost,
});

export async function describeDomain(deps: MailDomainDeps, domain: MailDomainRecord) {
  const records = requiredRecords(domain, deps.mailHost);
  const ok = await checkRecords(deps.resolver, records);
  return {
    records: records.map((r, i) => ({ ...r, ok: ok[i] })),
    // The seed's verification state: only a verified domain sends, receives and gets mailboxes.
    ready: domain.status === "verified",
    verification: {
      status: domain.status,
      ...(domain.verifiedBy ? { method: domain.verifiedBy } : {}),
      ...(domain.statusReason ? { reason: domain.statusReason } : {}),
      ...(domain.verifiedAt ? { verifiedAt: domain.verifiedAt } : {}),
      ...(domain.checkedAt ? { checkedAt: domain.checkedAt } : {}),
    },
  };
}

const depsOfVerification = (deps: MailDomainDeps) => ({ ...deps, now: () => deps.clock.now() });

/** Checks ownership now and keeps the claim's periodic check running; answers the claim as it stands. */
export async function refreshClaim(deps: MailDomainDeps, claim: MailDomainRecord): Promise<MailDomainRecord> {
  const { claim: checked } = await verifyClaim(depsOfVerification(deps), claim);
  await ensureScheduled(depsOfVerification(deps), checked);
  return checked;
}

/**
 * Connects `rawName` for the project, or connects it again: creates the claim with its keys (once),
 * reopens a claim that had ended, publishes its records where the project hosts the zone, and
 * checks ownership. Throws 409 when the name lies in a zone another project hosts here, and
 * CapReachedError when a new claim would pass `cap`.
 */
export async function connectMailDomain(
  deps: MailDomainDeps,
  projectId: string,
  rawName: string,
  cap?: number,
): Promise<{ domain: MailDomainRecord; created: number }> {
  const name = rawName.toLowerCase();
  const foreignZone = await zoneOfAnotherProject(deps.zones, projectId, name);
  if (foreignZone) throw conflict(hostedElsewhereReason(name, foreignZone));
  let claim = await deps.mailDomains.getByName(projectId, name);
  if (!claim) {
    const keys = await generateDkimKeys();
    claim = await deps.mailDomains.create({
      projectId,
      name,
      dkimSelector: keys.selector,
      dkimPrivateKey: keys.privateKeyPem,
      dkimPublicKey: keys.publicKeyBase64,
      verificationToken: newVerificationToken(),
    }, cap);
    // A concurrent connect of the same project made it first: that claim is this one.
    claim ??= (await deps.mailDomains.getByName(projectId, name))!;
  }
  if (claim.status === "ended") {
    await deps.mailDomains.markUnproven(claim.id, "pending", "connected again; checking ownership", new Date(deps.clock.now()).toISOString(), { reopen: true });
    claim = (await deps.mailDomains.getById(claim.id))!;
  }
  const created = await publishRecords(deps.zones, projectId, name, requiredRecords(claim, deps.mailHost));
  return { domain: await refreshClaim(deps, claim), created };
}

export function mailDomainHandlers(deps: MailDomainDeps & { limits: Limits }): MailDomainsHandlers<AuthContext> {
  return {
    async createMailDomain({ body, auth }) {
      const { domain, created } = await withinCap(connectMailDomain(deps, auth.projectId, body.name, deps.limits.mailDomains), "mail domains");
      return { id: domain.id, name: domain.name, autoDns: { created }, ...(await describeDomain(deps, domain)) };
    },

    async listMailDomains({ auth }) {
      const domains = await deps.mailDomains.list(auth.projectId);
      return { domains: domains.map((d) => ({ id: d.id, name: d.name, ready: d.status === "verified", status: d.status })) };
    },

    async getMailDomain({ params, auth }) {
      const claim = await deps.mailDomains.getByName(auth.projectId, params.domain);
      if (!claim) throw notFound(`mail domain ${params.domain}`);
      const domain = await refreshClaim(deps, claim);
      return { name: domain.name, ...(await describeDomain(deps, domain)) };
    },
  };
}
