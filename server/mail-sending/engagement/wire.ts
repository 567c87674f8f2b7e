// Wires the recipient's side of outgoing mail into a running server: the token key from the
// server key, the routes on the HTTP app, and the inbound listener's route for VERP addresses.
// Called by buildApp, which alone knows the public URL (the port is known only after listen).
import type { FastifyInstance } from "fastify";
import type { Services } from "../../services.ts";
import { messageIdFromReturnPath } from "../verp.ts";
import { MESSAGE_TOKEN_KEY_INFO, MessageTokens } from "../tokens/message-token.ts";
import { createMailEngagement, type MailEngagement } from "./mail-engagement.ts";

export async function wireMailEngagement(app: FastifyInstance, s: Services, publicUrl: () => string): Promise<MailEngagement> {
  const engagement = createMailEngagement({
    tokens: new MessageTokens(s.secrets.deriveKey(MESSAGE_TOKEN_KEY_INFO)),
    feedback: s.mailFeedback,
    publicUrl,
    messageIdOfReturnPath: messageIdFromReturnPath,
    log: (message, fields) => app.log.info(fields, message),
  });
  await engagement.registerRoutes(app);
  // Claimed at RCPT TO only when the address names a message sent from that very domain, so
  // any other `bounces+...` address is refused like an unknown mailbox.
  s.inbound.route(
    async (rcpt) => {
      const id = messageIdFromReturnPath(rcpt);
      const from = id ? (await s.mailFeedback.getTrackingInfo(id))?.from : undefined;
      return !!from && from.slice(from.lastIndexOf("@")).toLowerCase() === rcpt.slice(rcpt.lastIndexOf("@"));
    },
    async (message) => {
      await engagement.handleFeedback({ raw: message.raw, recipients: message.recipients });
    },
  );
  return engagement;
}
