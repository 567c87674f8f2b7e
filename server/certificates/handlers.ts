// Certificates: an order is stored `pending` with its issuance job in one transaction and answered
// at once; the job (jobs.ts) takes it to `active` or `failed`. Download is 409 `not_ready` until
// active (docs/decisions.md E7).
import type { CertificatesHandlers } from "../../generated/server/handlers.ts";
import { ApiError } from "../../generated/server/errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { Limits } from "../config.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import { invalidFields, limitReached, notFound } from "../http/errors.ts";
import type { Backend } from "../db/backend.ts";
import type { Clock } from "../jobs/clock.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { CertificateRepository, IssuerName } from "./certificate-repository.ts";
import { enqueueIssue } from "./jobs.ts";
import { orderProblems } from "./order-problems.ts";
import { daysLeft } from "./renewal.ts";

export interface CertificateDeps {
  certs: CertificateRepository;
  zones: DnsRecordRepository;
  backend: Backend;
  secrets: SecretBox;
  clock: Clock;
  issuer: IssuerName;
  limits: Limits;
}

export function certificateHandlers(deps: CertificateDeps): CertificatesHandlers<AuthContext> {
  async function owned(projectId: string, id: string) {
    const cert = await deps.certs.get(projectId, id);
    if (!cert) throw notFound(`certificate ${id}`);
    return cert;
  }

  return {
    async issueCertificate({ body, auth }) {
      const domains = body.domains.map((d) => d.toLowerCase());
      const problems = await orderProblems(deps.zones, auth.projectId, domains, body.csr);
      if (problems.length) throw invalidFields(problems);
      const order = { projectId: auth.projectId, domains, issuer: deps.issuer, autoRenew: body.autoRenew ?? true, ownCsr: body.csr ?? null };
      // The order and its issuance job commit together, or neither.
      const cert = await deps.backend.transact(async (tx) => {
        const stored = await deps.certs.createPending(tx, order, deps.limits.certificates);
        if (stored) await enqueueIssue(deps.backend, tx, stored);
        return stored;
      });
      if (!cert) throw limitReached("certificates", deps.limits.certificates);
      return { id: cert.id, subject: cert.subject, sans: cert.sans, status: cert.status };
    },

    async getCertificateStatus({ params, auth }) {
      const cert = await owned(auth.projectId, params.id);
      const active = cert.status === "active" && cert.notAfter !== null;
      return {
        status: cert.status,
        notAfter: active ? new Date(cert.notAfter!).toISOString() : null,
        daysLeft: active ? daysLeft(cert.notAfter!, deps.clock.now()) : null,
        ...(cert.status === "failed" ? { reason: cert.reason ?? "issuance failed" } : {}),
      };
    },

    async downloadCertificate({ params, auth }) {
      const cert = await owned(auth.projectId, params.id);
      if (cert.status !== "active" || !cert.fullchain) {
        throw new ApiError(409, "not_ready", `certificate ${cert.id} is ${cert.status}; it can be downloaded once active`);
      }
      return { fullchain: cert.fullchain, privkey: cert.keySealed ? deps.secrets.open(cert.keySealed) : null };
    },
  };
}
