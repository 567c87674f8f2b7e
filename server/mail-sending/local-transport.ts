// Mail for a recipient whose mailbox is on this deployment goes straight into the inbound
// delivery path (server/inbound/inbound-delivery.ts) instead of out to an MX: no MX lookup, no
// TCP hop, and no dependence on the mail host's name resolving anywhere (on a fresh `npm start`
// mx.platform.test resolves nowhere, and the demo's mail to itself stayed `delayed` for four
// days). It is still the recipient MX's path, the same the listener runs for mail from another
// server: the RCPT TO decision, our Received and Authentication-Results (SPF, DKIM and DMARC
// evaluated as for any sender, between two tenants too), the routes, and a durable store with
// `mail.received` before the relay counts the message delivered (decision H1).
import { randomBytes } from "node:crypto";
import type { RelayResult, RcptRejection } from "../adapters/smtp-relay.ts";
import { deliverInbound, refusalOf, type InboundDeliveryDeps } from "../inbound/inbound-delivery.ts";

/** Where a local hand-over comes from, for SPF and the Received line: this host, over no network. */
export const LOCAL_HOP_ADDRESS = "127.0.0.1";

export interface LocalTransport {
  /** True when this deployment is the recipient's MX: a route claims it, or its domain is one of ours. */
  accepts(rcpt: string): Promise<boolean>;
  deliver(envelope: { from: string; to: string[] }, raw: Buffer): Promise<RelayResult>;
}

export function localTransport(inbound: InboundDeliveryDeps, heloName: string): LocalTransport {
  return {
    async accepts(rcpt) {
      const address = rcpt.toLowerCase();
      if (await inbound.routes.find(address)) return true;
      return (await inbound.delivery.lookup(address)).kind !== "foreign";
    },

    async deliver(envelope, raw) {
      // RCPT TO, one recipient at a time, as the listener answers it.
      const accepted: string[] = [];
      const rejected: RcptRejection[] = [];
      for (const rcpt of envelope.to.map((r) => r.toLowerCase())) {
        const refusal = await refusalOf(inbound, rcpt);
        if (refusal) rejected.push({ rcpt, code: refusal.code, reply: `${refusal.code} ${refusal.text}` });
        else accepted.push(rcpt);
      }
      if (accepted.length === 0) return refusalResult(rejected[0].code, rejected[0].reply);
      try {
        const copies = await deliverInbound(inbound, raw, {
          remoteAddress: LOCAL_HOP_ADDRESS,
          helo: heloName,
          mailFrom: envelope.from,
          recipients: accepted,
          secure: false,
          sessionId: randomBytes(8).toString("hex"),
        });
        return { kind: "accepted", host: inbound.mailHost, reply: `250 2.0.0 delivered locally (${copies.length} mailbox copies)`, rejected };
      } catch (error) {
        const { responseCode, message } = error as Error & { responseCode?: number };
        // Anything that is not an SMTP reply is a failure of ours: try again later.
        if (responseCode === undefined) return { kind: "deferred", reply: `local delivery failed: ${message}` };
        return refusalResult(responseCode, `${responseCode} ${message}`);
      }
    },
  };
}

function refusalResult(code: number, reply: string): RelayResult {
  return code >= 500 ? { kind: "rejected", code, reply } : { kind: "deferred", code, reply };
}
