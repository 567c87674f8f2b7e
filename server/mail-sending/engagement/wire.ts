// Wires the recipient's side of outgoing mail into a running server: the routes on the HTTP app,
// and the inbound listener's route for VERP addresses. The token key and the VERP signer come
// from services (one HKDF key of the server key, purposes apart: T3, T6). Called by buildApp,
// which alone knows the public URL (the port is known only after listen).
import type { FastifyInstance } from "fastify";
import type { Services } from "../../services.ts";
import { createMailEngagement, type MailEngagement } from "./mail-engagement.ts";

export async function wireMailEngagement(app: FastifyInstance, s: Services, publicUrl: () => string): Promise<MailEngagement> {
  const engagement = createMailEngagement({
    tokens: s.messageTokens,
    feedback: s.mailFeedback,
    publicUrl,
    returnPaths: s.returnPaths,
    log: (message, fields) => app.log.info(fields, message),
  });
  await engagement.registerRoutes(app);
  // Claimed at RCPT TO only when the address is one the send path signed for a message sent from
  // that very domain; any other `bounces+...` (a guessed id, a wrong MAC, the unsigned form of
  // before T6) is refused like an unknown mailbox.
  s.inbound.route(
    (rcpt) => engagement.isReturnPath(rcpt),
    async (message) => {
      await engagement.handleFeedback({ raw: message.raw, recipients: message.recipients });
    },
  );
  return engagement;
}
