// Mail domains: connect (DKIM keys, required records, auto-publish into a hosted zone), list, get.
import type { MailDomainsHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { DnsResolver } from "../dns/resolver.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { Limits } from "../config.ts";
import { conflict, notFound, withinCap } from "../http/errors.ts";
import { generateDkimKeys, newVerificationToken } from "./dkim.ts";
import type { MailDomainRecord, MailDomainRepository } from "./maildomain-repository.ts";
import { publishRecords } from "./publish-records.ts";
import { checkRecords } from "./record-check.ts";
import { requiredRecords } from "./required-records.ts";

export interface MailDomainDeps {
  mailDomains: MailDomainRepository;
  zones: DnsRecordRepository;
  resolver: DnsResolver;
  mailHost: string;
  limits: Limits;
}

export async function describeDomain(deps: MailDomainDeps, domain: MailDomainRecord) {
  const records = requiredRecords(domain, deps.mailHost);
  const ok = await checkRecords(deps.resolver, records);
  return {
    records: records.map((r, i) => ({ ...r, ok: ok[i] })),
    ready: ok.every(Boolean),
  };
}

/**
 * Creates the domain with its keys and publishes its records where we host the zone; undefined
 * when taken, CapReachedError when the project already has `cap` domains.
 */
export async function connectMailDomain(
  deps: Pick<MailDomainDeps, "mailDomains" | "zones" | "mailHost">,
  projectId: string,
  rawName: string,
  cap?: number,
): Promise<{ domain: MailDomainRecord; created: number } | undefined> {
  const name = rawName.toLowerCase();
  const keys = await generateDkimKeys();
  const domain = await deps.mailDomains.create({
    projectId,
    name,
    dkimSelector: keys.selector,
    dkimPrivateKey: keys.privateKeyPem,
    dkimPublicKey: keys.publicKeyBase64,
    verificationToken: newVerificationToken(),
  }, cap);
  if (!domain) return undefined;
  const created = await publishRecords(deps.zones, projectId, name, requiredRecords(domain, deps.mailHost));
  return { domain, created };
}

export function mailDomainHandlers(deps: MailDomainDeps): MailDomainsHandlers<AuthContext> {
  return {
    async createMailDomain({ body, auth }) {
      const connected = await withinCap(connectMailDomain(deps, auth.projectId, body.name, deps.limits.mailDomains), "mail domains");
      if (!connected) throw conflict(`the domain ${body.name.toLowerCase()} is already connected`);
      const { domain, created } = connected;
      const { records, ready } = await describeDomain(deps, domain);
      return { id: domain.id, name: domain.name, autoDns: { created }, records, ready };
    },

    async listMailDomains({ auth }) {
      const domains = await deps.mailDomains.list(auth.projectId);
      return { domains: domains.map((d) => ({ id: d.id, name: d.name })) };
    },

    async getMailDomain({ params, auth }) {
      const domain = await deps.mailDomains.getByName(auth.projectId, params.domain);
      if (!domain) throw notFound(`mail domain ${params.domain}`);
      return { name: domain.name, ...(await describeDomain(deps, domain)) };
    },
  };
}
