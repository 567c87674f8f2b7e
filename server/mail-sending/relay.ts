// The built-in relay's job handlers. `mail.relay` reads as the steps of one delivery: still to
// deliver? -> the sender domain, still verified, and its DKIM key -> compose and sign -> hand over
// to the recipient's MX (this deployment's own inbound path when the recipient's mailbox is here)
// -> record the outcome (with its event) in the worker's transaction, which also removes or
// reschedules the job. `mail.dispatch` turns a scheduled message into a sent one.
import { relayMessage, type RelayResult, type SmtpRelayOptions } from "../adapters/smtp-relay.ts";
import type { Clock } from "../jobs/clock.ts";
import type { Sql } from "../db/sql.ts";
import type { JobHandler, JobOutcome } from "../jobs/worker.ts";
import type { MailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { notVerifiedText } from "../maildomains/not-verified.ts";
import { composeMessage, dkimSign } from "./compose.ts";
import type { LocalTransport } from "./local-transport.ts";
import { isSandboxAddress, reactionOf, sandboxAnswer } from "./sandbox/sandbox-recipients.ts";
import { SANDBOX_JOB, type SandboxJobPayload } from "./sandbox/sandbox-reactions.ts";
import type { MailOutbox } from "./mail-outbox.ts";
import type { AttemptOutcome, DeliveryOutcomes, MessageFeedback, SentMessageRepository, StoredMessage } from "./message-repository.ts";
import { DISPATCH_JOB, RELAY_JOB, domainOf, type DispatchJobPayload, type RelayJobPayload } from "./relay-jobs.ts";
import { nextRetryDelay } from "./retry-schedule.ts";
import type { ReturnPaths } from "./verp.ts";

export interface RelayDeps {
  messages: SentMessageRepository;
  outcomes: DeliveryOutcomes & MessageFeedback;
  mailDomains: MailDomainRepository;
  smtp: SmtpRelayOptions;
  /** Recipients whose mailboxes are here; absent, everything goes to an MX (or the smarthost). */
  local?: LocalTransport;
  /** Enqueues in the caller's transaction: a sandbox recipient's reaction follows its delivery. */
  jobs: Pick<MailOutbox, "enqueue">;
  relayName: string;
  /** The signed envelope senders (T6), made at each attempt: a message queued before T6 leaves with one too. */
  returnPaths: ReturnPaths;
  clock: Clock;
  log?: (message: string, fields: Record<string, unknown>) => void;
}

const IN_FLIGHT = new Set(["sent", "delayed"]);

/**
 * A job outcome's write, on the Sql of the worker's transaction that records the outcome.
 * Transitional (issue 37): the worker's JobOutcome still types its transaction as the old
 * per-store handle (db/tx.ts), and main's queues cannot run this write yet (SQLite's record
 * refuses a write that answers a promise, PostgreSQL's hands a bare client): the outcome is not
 * recorded and the job runs again. Once the queue records outcomes on the Store and hands its Sql
 * (the foundation's part of issue 37), this is `write` itself.
 */
const onWorkerTx = (write: (tx: Sql) => Promise<unknown>): NonNullable<JobOutcome["write"]> => async (tx) => {
  await write(tx as unknown as Sql);
};

export function mailJobHandlers(deps: RelayDeps): Record<string, JobHandler> {
  const log = deps.log ?? (() => {});

  async function relay(job: Parameters<JobHandler>[0]): Promise<JobOutcome> {
    const { messageId, rcpts, primary } = job.payload as RelayJobPayload;
    const m = await deps.messages.getForRelay(messageId);
    // At least once: an attempt that already recorded its outcome is not repeated.
    if (!m || (primary && !IN_FLIGHT.has(m.status))) return { done: true };
    const domain = await deps.mailDomains.getByName(m.projectId, domainOf(m.from));
    if (!domain) return stop(primary, m, "the sender domain is no longer connected to the project");
    // Checked when it leaves, not only when it was accepted: a scheduled send firing, or a retry,
    // after the domain lost its proof (decision O1) is not signed with its key.
    if (domain.status !== "verified") return stop(primary, m, notVerifiedText(domain));
    const signed = await dkimSign(await composeMessage(m), { domainName: domain.name, keySelector: domain.dkimSelector, privateKey: domain.dkimPrivateKey });
    // The To recipient's delivery and the copies' carry different addresses, so a Cc or Bcc
    // recipient who sees its own cannot report on the To recipient's (T7).
    const envelope = { from: deps.returnPaths.for(m, primary ? "to" : "copies"), to: rcpts };
    // Test recipients and local mailboxes first, before any smarthost: mail that stays here has no
    // relay to go through.
    if (isSandboxAddress(rcpts[0])) return record(job.attempts, primary, m, rcpts, sandboxAnswer(rcpts, job.attempts), true);
    const local = deps.local !== undefined && (await deps.local.accepts(rcpts[0]));
    const result = local ? await deps.local!.deliver(envelope, signed) : await relayMessage(deps.smtp, envelope, signed);
    return record(job.attempts, primary, m, rcpts, result, local);
  }

  function stop(primary: boolean, m: StoredMessage, reason: string): JobOutcome {
    return { done: true, write: primary ? onWorkerTx((tx) => deps.outcomes.markFailed(m.id, reason, tx)) : undefined };
  }

  /** `final`: the answer came from the recipient's own side (a mailbox here, the sandbox), never a smarthost's hand-over. */
  function record(attempts: number, primary: boolean, m: StoredMessage, rcpts: string[], r: RelayResult, final: boolean): JobOutcome {
    if (!primary) {
      // Cc and Bcc copies: delivered, refused or retried; only the `to` recipient moves the status.
      if (r.kind === "deferred" && nextRetryDelay(attempts) !== undefined) return { retryAt: deps.clock.now() + nextRetryDelay(attempts)!, error: r.reply };
      if (r.kind !== "accepted") log("copy not delivered", { messageId: m.id, rcpts, outcome: r.kind, reply: r.reply });
      return { done: true };
    }
    const attempt = (outcome: AttemptOutcome, write: (tx: Sql) => Promise<unknown>): JobOutcome["write"] => {
      const host = "host" in r ? r.host : undefined;
      if (outcome === "delayed" || outcome === "failed" || outcome === "soft_bounced") {
        // Once per attempt, at warn: an operator sees why mail is not leaving without opening the API.
        log("delivery attempt not delivered", { messageId: m.id, to: m.to, attempt: attempts, outcome, reason: r.reply, host });
      }
      return onWorkerTx(async (tx) => {
        await deps.outcomes.recordAttempt(m.id, { attempt: attempts, outcome, reason: r.reply, host }, tx);
        await write(tx);
      });
    };
    switch (r.kind) {
      case "accepted":
        // A smarthost's 250 is a hand-over to another relay, not delivery (S11, S12).
        if (deps.smtp.smarthost && !final) return { done: true, write: attempt("handed_over", (tx) => deps.outcomes.markHandedOver(m.id, r.queueId ?? r.reply, tx)) };
        return {
          done: true,
          write: attempt("delivered", async (tx) => {
            await deps.outcomes.markDelivered(m.id, r.reply, tx);
            await sandboxReaction(m, tx);
          }),
        };
      case "rejected":
        return { done: true, write: attempt("bounced", (tx) => deps.outcomes.markBounced(m.id, { bounceType: "hard", reason: r.reply }, tx)) };
      case "unroutable":
        return { done: true, write: attempt("failed", (tx) => deps.outcomes.markFailed(m.id, r.reply, tx)) };
      case "deferred": {
        const delay = nextRetryDelay(attempts);
        if (delay !== undefined) return { retryAt: deps.clock.now() + delay, error: r.reply, write: attempt("delayed", (tx) => deps.outcomes.markDelayed(m.id, r.reply, tx)) };
        // Retries exhausted: a server that kept answering 4xx is a soft bounce; none answering, a failure.
        if (r.code !== undefined) return { done: true, write: attempt("soft_bounced", (tx) => deps.outcomes.markBounced(m.id, { bounceType: "soft", reason: r.reply }, tx)) };
        const reason = `no attempt reached a recipient server: ${r.reply}`;
        return { done: true, write: attempt("failed", (tx) => deps.outcomes.markFailed(m.id, reason, tx)) };
      }
    }
  }

  /** A sandbox recipient's reaction (a DSN, a complaint, an open, a click) after its delivery. */
  async function sandboxReaction(m: StoredMessage, tx: Sql): Promise<void> {
    const reaction = isSandboxAddress(m.to) ? reactionOf(m.to) : undefined;
    if (reaction) await deps.jobs.enqueue(tx, SANDBOX_JOB, { messageId: m.id, reaction } satisfies SandboxJobPayload);
  }

  return {
    [RELAY_JOB]: relay,
    [DISPATCH_JOB]: async (job) => {
      const { messageId } = job.payload as DispatchJobPayload;
      return { done: true, write: onWorkerTx((tx) => deps.messages.dispatchScheduled(messageId, deps.relayName, tx)) };
    },
  };
}
