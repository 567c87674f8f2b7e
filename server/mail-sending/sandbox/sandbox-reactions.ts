// What a sandbox recipient does once its server accepted a message: the `mail.sandbox` job,
// enqueued in the same write that records the message delivered, so a reaction never comes
// before `delivered` and is never lost (at least once; every step below is idempotent). Each one
// takes the path the real one takes:
// - bounced: a DSN to the message's VERP address, through the inbound delivery path and its
//   route (server/mail-sending/feedback), which records the hard bounce and suppression;
// - complained: an ARF report the same way, recorded as a complaint;
// - opened / clicked: the recipient's client loads the tracking pixel or follows the first
//   tracked link, recorded as the tracking routes record them. A message sent without tracking
//   (`track: false`) or without links shows nothing, as a real recipient's would not.
import type { InboundDeliveryDeps } from "../../inbound/inbound-delivery.ts";
import { deliverInbound, refusalOf } from "../../inbound/inbound-delivery.ts";
import type { JobHandler } from "../../jobs/worker.ts";
import type { Clock } from "../../jobs/clock.ts";
import { composeMessage } from "../compose.ts";
import type { MessageFeedback, SentMessageRepository } from "../message-repository.ts";
import { LOCAL_HOP_ADDRESS } from "../local-transport.ts";
import { SANDBOX_DOMAIN, type SandboxReaction } from "./sandbox-recipients.ts";
import { sandboxArf, sandboxDsn } from "./sandbox-reports.ts";
import type { ReturnPaths } from "../verp.ts";

export const SANDBOX_JOB = "mail.sandbox";

export interface SandboxJobPayload {
  messageId: string;
  reaction: SandboxReaction;
}

export interface SandboxReactionDeps {
  messages: SentMessageRepository;
  feedback: MessageFeedback;
  inbound: InboundDeliveryDeps;
  /** The signed return path the message left with (T6): reports go where a real server sends them. */
  returnPaths: ReturnPaths;
  clock: Clock;
}

export function sandboxReactionHandler(deps: SandboxReactionDeps): JobHandler {
  return async (job) => {
    const { messageId, reaction } = job.payload as SandboxJobPayload;
    const m = await deps.messages.getForRelay(messageId);
    if (!m) return { done: true };
    if (reaction === "opened" || reaction === "clicked") {
      const info = await deps.feedback.getTrackingInfo(messageId);
      if (!info?.track) return { done: true };
      if (reaction === "opened") await deps.feedback.recordOpen(messageId);
      else if (info.links.length > 0) await deps.feedback.recordClick(messageId, info.links[0].idx);
      return { done: true };
    }
    const returnPath = deps.returnPaths.for(m, "to");
    const raw = await composeMessage(m);
    const end = raw.indexOf("\r\n\r\n");
    const input = { returnPath, recipient: m.to, originalHeaders: raw.subarray(0, end < 0 ? raw.length : end).toString("utf8"), date: new Date(deps.clock.now()) };
    const report = reaction === "bounced" ? sandboxDsn(input) : sandboxArf(input);
    // An address nothing claims any more (the sender domain gone): the report bounces, as a real one would.
    if (await refusalOf(deps.inbound, returnPath.toLowerCase())) return { done: true };
    // From the null sender, as every DSN and feedback report; a temporary refusal (451) retries the job.
    await deliverInbound(deps.inbound, report, {
      remoteAddress: LOCAL_HOP_ADDRESS,
      helo: SANDBOX_DOMAIN,
      mailFrom: "",
      recipients: [returnPath.toLowerCase()],
      secure: false,
      sessionId: `sandbox-${job.id}`,
    });
    return { done: true };
  };
}
