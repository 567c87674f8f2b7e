// What the listener adds on top of a message before storing it: a Received line (RFC 5321
// §4.4) and the verdicts of SPF, DKIM and DMARC (mailauth, against the configured resolver) as
// Authentication-Results, plus a Message-ID when the message has none (every stored message has
// a global key). A sender cannot forge our verdict: Authentication-Results already carrying our
// host name as authserv-id are renamed (RFC 8601 §5).
import { randomBytes } from "node:crypto";
import { authenticate } from "mailauth";

export interface Envelope {
  remoteAddress: string;
  helo: string;
  mailFrom: string;
  recipients: string[];
  secure: boolean;
  sessionId: string;
  receivedAt: Date;
}

export type Resolve = (name: string, rrtype: string) => Promise<unknown>;

export async function traceHeaders(raw: Buffer, envelope: Envelope, mailHost: string, resolve: Resolve): Promise<Buffer> {
  const cleaned = renameForgedResults(raw, mailHost);
  let authentication: string;
  try {
    const result = await authenticate(authenticationInput(cleaned), {
      ip: envelope.remoteAddress,
      helo: envelope.helo,
      sender: envelope.mailFrom,
      mta: mailHost,
      resolver: resolve as (name: string, rrtype: string) => Promise<string[]>,
      // BIMI fetches logos and certificates over HTTPS: no outbound calls for an inbound message.
      disableBimi: true,
    });
    authentication = result.headers;
  } catch {
    // A message mailauth cannot read at all is still stored; say that nothing was verified.
    authentication = `Authentication-Results: ${mailHost}; none\r\n`;
  }
  const lines = [received(envelope, mailHost), authentication.replace(/\r?\n/g, "\r\n").replace(/(\r\n)?$/, "\r\n")];
  if (!hasHeader(cleaned, "message-id")) lines.push(`Message-ID: <${randomBytes(12).toString("hex")}@${mailHost}>\r\n`);
  return Buffer.concat([Buffer.from(lines.join(""), "utf8"), cleaned]);
}

function received(e: Envelope, mailHost: string): string {
  const via = e.secure ? "ESMTPS" : "ESMTP";
  const helo = e.helo.replace(/[^\x21-\x7e]/g, "") || "unknown";
  const forWhom = e.recipients.length === 1 ? `\r\n\tfor <${e.recipients[0]}>` : "";
  return `Received: from ${helo} ([${e.remoteAddress}])\r\n\tby ${mailHost} with ${via} id ${e.sessionId}${forWhom};\r\n\t${e.receivedAt.toUTCString().replace("GMT", "+0000")}\r\n`;
}

/**
 * What mailauth needs to read. The body matters only to a signature's body hash (DKIM-Signature,
 * ARC-Message-Signature; ARC-Seal needs its chain's); an unsigned message's verdicts (dkim=none,
 * SPF, DMARC) come from the header and the envelope alone, so it gets only its header section
 * and is not hashed and split line by line for nothing: about a third of mailauth's CPU for a
 * 10 KB message, and the verdict is byte for byte the same (trace-headers.test.ts).
 */
export function authenticationInput(raw: Buffer): Buffer {
  const end = headerBlockEnd(raw);
  if (end === raw.length) return raw;
  const head = raw.subarray(0, end).toString("latin1");
  if (/^(dkim-signature|arc-seal|arc-message-signature)[ \t]*:/im.test(head)) return raw;
  // Through the empty line that ends the header, as written (CRLF or a bare LF message's LF).
  return raw.subarray(0, end + (raw[end] === 0x0d ? 4 : 2));
}

function headerBlockEnd(raw: Buffer): number {
  const crlf = raw.indexOf("\r\n\r\n");
  const lf = raw.indexOf("\n\n");
  if (crlf < 0 && lf < 0) return raw.length;
  if (crlf < 0) return lf;
  return lf < 0 ? crlf : Math.min(crlf, lf);
}

function hasHeader(raw: Buffer, name: string): boolean {
  const head = raw.subarray(0, headerBlockEnd(raw)).toString("latin1");
  return new RegExp(`^${name}[ \\t]*:`, "im").test(head);
}

function renameForgedResults(raw: Buffer, mailHost: string): Buffer {
  const end = headerBlockEnd(raw);
  const head = raw.subarray(0, end).toString("latin1");
  const host = mailHost.toLowerCase();
  const renamed = head.replace(/^Authentication-Results([ \t]*:[ \t]*)([^;\r\n]*)/gim, (whole, sep: string, authservId: string) =>
    authservId.trim().toLowerCase() === host ? `X-Untrusted-Authentication-Results${sep}${authservId}` : whole,
  );
  return renamed === head ? raw : Buffer.concat([Buffer.from(renamed, "latin1"), raw.subarray(end)]);
}
