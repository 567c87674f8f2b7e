// The periodic re-check of every open mail-domain claim, on the one job queue (server/jobs):
// `maildomain.verify` checks one claim and commits its next check before it is done. Each claim
// has one chain: the job carries the due time it was scheduled for, and a job whose due time is
// no longer the claim's `next_check_at` is stale and ends (so a chain started twice collapses).
import type { Backend } from "../db/backend.ts";
import type { Sql } from "../db/sql.ts";
import type { JobHandler } from "../jobs/worker.ts";
import type { MailDomainRecord, MailDomainRepository } from "./maildomain-repository.ts";
import { verifyClaim, type VerificationDeps } from "./verification.ts";

export const VERIFY_JOB = "maildomain.verify";

/** Decision O4: every open claim (pending, verified, lost) is re-checked hourly. */
export const RECHECK_INTERVAL_MS = 3_600_000;
/** After a lookup that got no answer: sooner, since nothing was concluded. */
export const RETRY_AFTER_UNANSWERED_MS = 300_000;

interface VerifyPayload {
  domainId: string;
  due: number;
}

export interface VerificationJobDeps extends VerificationDeps {
  backend: Backend;
  log?: (message: string, fields: Record<string, unknown>) => void;
}

/** Starts (or restarts) the claim's chain with a check due at `due`, in tx. */
export async function scheduleCheck(deps: { backend: Backend; mailDomains: MailDomainRepository }, tx: Sql, domainId: string, due: number): Promise<void> {
  await deps.mailDomains.setNextCheck(tx, domainId, due);
  await deps.backend.enqueue(tx, VERIFY_JOB, { domainId, due } satisfies VerifyPayload, { runAt: due, group: VERIFY_JOB });
}

/** A claim checked on demand (connect, read) gets a chain when it has none or it is overdue. */
export async function ensureScheduled(deps: Pick<VerificationJobDeps, "backend" | "mailDomains" | "now">, claim: MailDomainRecord): Promise<void> {
  if (claim.status === "ended") return;
  const now = deps.now();
  if (claim.nextCheckAt !== null && claim.nextCheckAt >= now - RECHECK_INTERVAL_MS) return;
  await deps.backend.transact((tx) => scheduleCheck(deps, tx, claim.id, now + RECHECK_INTERVAL_MS));
}

/** At start: a chain for every open claim that has none (migrated rows, a crash between connect and schedule). */
export async function scheduleMissingChecks(deps: Pick<VerificationJobDeps, "backend" | "mailDomains" | "now">): Promise<number> {
  const now = deps.now();
  const ids = await deps.mailDomains.unscheduled(now - RECHECK_INTERVAL_MS);
  for (const id of ids) await deps.backend.transact((tx) => scheduleCheck(deps, tx, id, now));
  return ids.length;
}

export function verificationJobHandlers(deps: VerificationJobDeps): Record<string, JobHandler> {
  const log = deps.log ?? (() => {});
  return {
    [VERIFY_JOB]: async (job) => {
      const { domainId, due } = job.payload as VerifyPayload;
      const claim = await deps.mailDomains.getById(domainId);
      if (!claim || claim.status === "ended" || claim.nextCheckAt !== due) return { done: true };
      const { claim: checked, found } = await verifyClaim(deps, claim);
      if (claim.status === "verified" && checked.status !== "verified") {
        // Sending and receiving stop here; the state and its reason are what GET shows.
        log("mail domain lost its proof of ownership", { domain: claim.name, projectId: claim.projectId, status: checked.status, reason: checked.statusReason });
      }
      if (checked.status === "ended") return { done: true };
      const next = deps.now() + (found === "unknown" ? RETRY_AFTER_UNANSWERED_MS : RECHECK_INTERVAL_MS);
      // The next check is committed in its own transaction, before this job is done: should the
      // job run again (a crash before its removal), its due time is no longer the claim's and it
      // ends as stale, so the chain stays one.
      await deps.backend.transact((tx) => scheduleCheck(deps, tx, claim.id, next));
      return { done: true };
    },
  };
}
