// The RCPT TO decision of the MX: an address a route claims (bounces, feedback loops, VERP), a
// mailbox or a group of a verified domain is accepted; any other address of a verified domain
// is "no such mailbox" (5.1.1); a mailbox of a domain that lost its proof waits (450 4.7.1); an
// address of any other domain, a merely claimed one included (decision O1), is refused as
// relaying (5.7.1), since an MX that took those would be an open relay.
import type { Recipient } from "./delivery-repository.ts";
import type { InboundRoutes } from "./routes.ts";

export interface Refusal {
  code: number;
  text: string;
}

/** The refusal for `rcpt` (lowercased), or null when it is accepted. A failing lookup rejects (the listener answers 451). */
export async function recipientRefusal(routes: InboundRoutes, lookup: (address: string) => Recipient | Promise<Recipient>, rcpt: string): Promise<Refusal | null> {
  // A route may answer later (the VERP route asks the database for the sender domain).
  if (await routes.find(rcpt)) return null;
  const recipient = await lookup(rcpt);
  if (recipient.kind === "mailbox" || recipient.kind === "group") return null;
  if (recipient.kind === "unknown") return { code: 550, text: `5.1.1 <${rcpt}>: no such mailbox here` };
  // Temporary: the domain's owner may restore its proof, and the sender's retries then get through.
  if (recipient.kind === "unverified") return { code: 450, text: `4.7.1 <${rcpt}>: the domain is not verified here at present, try again later` };
  return { code: 550, text: `5.7.1 <${rcpt}>: relay access denied` };
}
