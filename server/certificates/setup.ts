// Wiring of the area: the configured issuer, its job handlers, and what the first start creates
// (the local CA) or needs (trust for a private ACME CA's HTTPS).
import { readFileSync } from "node:fs";
import { trustForAcme } from "../adapters/acme-client.ts";
import type { ServerConfig } from "../config.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { Backend } from "../db/backend.ts";
import type { Clock } from "../jobs/clock.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { acmeIssuer } from "./acme-issuer.ts";
import type { CertificateRepository } from "./certificate-repository.ts";
import type { Issuer } from "./issuer.ts";
import { certificateJobHandlers } from "./jobs.ts";
import { ensureLocalCa, localIssuer } from "./local-ca.ts";

export interface CertificateAreaDeps {
  config: ServerConfig;
  certs: CertificateRepository;
  zones: DnsRecordRepository;
  secrets: SecretBox;
  backend: Backend;
  clock: Clock;
}

export function createIssuer(d: CertificateAreaDeps): Issuer {
  return d.config.certificates.issuer === "acme"
    ? acmeIssuer({ config: d.config.certificates.acme, certs: d.certs, zones: d.zones, secrets: d.secrets })
    : localIssuer(d.certs, d.secrets, d.clock);
}

export function certificateJobs(d: CertificateAreaDeps): Record<string, JobHandler> {
  return certificateJobHandlers({ certs: d.certs, issuer: createIssuer(d), secrets: d.secrets, backend: d.backend, clock: d.clock });
}

/** At start: the local CA exists from the first start on; a private ACME CA's certificate is trusted. */
export async function prepareCertificates(d: Pick<CertificateAreaDeps, "config" | "certs" | "secrets" | "clock">): Promise<void> {
  await ensureLocalCa(d.certs, d.secrets, d.clock);
  const caFile = d.config.certificates.acme.caFile;
  if (d.config.certificates.issuer === "acme") trustForAcme(caFile ? readFileSync(caFile, "utf8") : undefined);
}
