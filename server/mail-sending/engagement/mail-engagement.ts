// The one object the server wires for the recipient's side of outgoing mail: the outgoing hook
// the accept path calls, the routes it serves without a key, and the handler the inbound
// listener calls for mail to a VERP Return-Path.
import type { FastifyInstance } from "fastify";
import { handleFeedbackMail, reportedMessage, type FeedbackMail, type FeedbackOutcome } from "../feedback/feedback-handler.ts";
import type { MessageTokens } from "../tokens/message-token.ts";
import { registerTrackingRoutes } from "../tracking/routes.ts";
import { registerUnsubscribeRoutes } from "../unsubscribe/routes.ts";
import type { MessageFeedback } from "../message-repository.ts";
import type { OutgoingMailHooks } from "../outgoing-hooks.ts";
import type { ReturnPaths } from "../verp.ts";
import { outgoingExtras } from "./outgoing-extras.ts";

export interface MailEngagementDeps {
  tokens: MessageTokens;
  feedback: MessageFeedback;
  /** The server's public base URL; known only once the server listens when its port is 0. */
  publicUrl: () => string;
  /** The send path's signed VERP addresses (T6). */
  returnPaths: ReturnPaths;
  /** Where a report that changed nothing is noted (never with the report's content). */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface MailEngagement {
  /** The send path's outgoing hook. */
  hooks: OutgoingMailHooks;
  registerRoutes(app: FastifyInstance): Promise<void>;
  handleFeedback(mail: FeedbackMail): Promise<FeedbackOutcome>;
  /** True when `rcpt` is a signed VERP address of a message sent from that very domain. */
  isReturnPath(rcpt: string): Promise<boolean>;
}

export function createMailEngagement(deps: MailEngagementDeps): MailEngagement {
  return {
    hooks: { prepare: (input) => outgoingExtras(deps, input) },
    async registerRoutes(app) {
      registerTrackingRoutes(app, deps);
      await registerUnsubscribeRoutes(app, deps);
    },
    isReturnPath: async (rcpt) => Boolean(await reportedMessage(deps, rcpt)),
    async handleFeedback(mail) {
      const outcome = await handleFeedbackMail(deps, mail);
      if (outcome.action === "ignored") deps.log?.("feedback mail changed nothing", { messageId: outcome.messageId, reason: outcome.reason });
      return outcome;
    },
  };
}
