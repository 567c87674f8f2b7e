// The background half of the area, on the one job queue: `cert.issue` takes a pending order to
// active or failed; `cert.renew` replaces an active certificate before it expires. Both are
// at-least-once: a job interrupted by a crash runs again after the restart and first checks
// what is already recorded.
import { X509Certificate } from "node:crypto";
import type { Backend } from "../db/backend.ts";
import type { Sql } from "../db/sql.ts";
import type { Clock } from "../jobs/clock.ts";
import type { Job } from "../jobs/job-queue.ts";
import type { JobHandler, JobOutcome } from "../jobs/worker.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { Certificate, CertificateRepository, IssuedCertificate } from "./certificate-repository.ts";
import { IssuanceError, type Issuer } from "./issuer.ts";
import { newKeyAndCsr } from "./keys.ts";
import { ISSUE_ATTEMPTS, issueBackoff, renewalBackoff, renewalDue } from "./renewal.ts";

export const ISSUE_JOB = "cert.issue";
export const RENEW_JOB = "cert.renew";

export interface CertificateJobDeps {
  certs: CertificateRepository;
  issuer: Issuer;
  secrets: SecretBox;
  backend: Backend;
  clock: Clock;
}

interface IssuePayload {
  certificateId: string;
}
interface RenewPayload {
  certificateId: string;
  /** The notAfter of the certificate this job renews: a job for one already replaced is stale. */
  notAfter: number;
}

/** Enqueues the issuance of a stored pending order (on the order's transaction). */
export async function enqueueIssue(backend: Backend, tx: Sql, cert: Certificate): Promise<void> {
  await backend.enqueue(tx, ISSUE_JOB, { certificateId: cert.id } satisfies IssuePayload, { group: `cert:${cert.issuer}` });
}

export function certificateJobHandlers(deps: CertificateJobDeps): Record<string, JobHandler> {
  const { certs, issuer, secrets, backend, clock } = deps;

  /** Issues for the order's names; a new key each time unless the caller brought a CSR. */
  async function issueFor(cert: Certificate): Promise<IssuedCertificate> {
    const made = cert.ownCsr ? undefined : await newKeyAndCsr(cert.sans);
    const fullchain = await issuer.issue({ certificateId: cert.id, domains: cert.sans, csrPem: cert.ownCsr ?? made!.csrPem });
    const leaf = new X509Certificate(fullchain);
    return {
      fullchain,
      keySealed: made ? secrets.seal(made.keyPem) : null,
      notBefore: Date.parse(leaf.validFrom),
      notAfter: Date.parse(leaf.validTo),
    };
  }

  async function scheduleRenewal(tx: Sql, cert: Certificate, issued: IssuedCertificate): Promise<void> {
    if (!cert.autoRenew) return;
    await backend.enqueue(tx, RENEW_JOB, { certificateId: cert.id, notAfter: issued.notAfter } satisfies RenewPayload, {
      runAt: renewalDue(issued.notBefore, issued.notAfter, clock.now()),
      group: `cert:${cert.issuer}`,
    });
  }

  const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

  async function issue(job: Job): Promise<JobOutcome> {
    const { certificateId } = job.payload as IssuePayload;
    const cert = await certs.getById(certificateId);
    if (!cert || cert.status !== "pending") return { done: true };
    try {
      const issued = await issueFor(cert);
      return {
        done: true,
        write: async (tx) => {
          await certs.markActive(tx, cert.id, issued);
          await scheduleRenewal(tx, cert, issued);
        },
      };
    } catch (error) {
      const retryable = error instanceof IssuanceError ? error.retryable : false;
      if (retryable && job.attempts < ISSUE_ATTEMPTS) return { retryAt: clock.now() + issueBackoff(job.attempts), error: reasonOf(error) };
      return { done: true, write: async (tx) => void (await certs.markFailed(tx, cert.id, reasonOf(error))) };
    }
  }

  async function renew(job: Job): Promise<JobOutcome> {
    const { certificateId, notAfter } = job.payload as RenewPayload;
    const cert = await certs.getById(certificateId);
    // Gone, turned off, or already renewed by an earlier run of this job: nothing to do.
    if (!cert || cert.status !== "active" || !cert.autoRenew || cert.notAfter !== notAfter) return { done: true };
    try {
      const issued = await issueFor(cert);
      // Swapped only now, on success; the old certificate was served until this commit.
      return {
        done: true,
        write: async (tx) => {
          await certs.replace(tx, cert.id, issued);
          await scheduleRenewal(tx, cert, issued);
        },
      };
    } catch (error) {
      return { retryAt: clock.now() + renewalBackoff(job.attempts), error: reasonOf(error), write: async (tx) => void (await certs.recordRenewalFailure(tx, cert.id, reasonOf(error))) };
    }
  }

  return { [ISSUE_JOB]: issue, [RENEW_JOB]: renew };
}
