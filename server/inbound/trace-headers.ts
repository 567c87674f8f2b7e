// What the listener adds on top of a message before storing it: a Received line (RFC 5321
// §4.4) and the verdicts of SPF, DKIM and DMARC (mailauth, against the configured resolver) as
// Authentication-Results, plus a Message-ID when the message has none (every stored message has
// a global key). A sender cannot forge our verdict: Authentication-Results already carrying our
// host name as authserv-id are renamed (RFC 8601 §5).
import { randomBytes } from "node:crypto";
import { authenticate, dmarc as verifyDmarc } from "mailauth";

export interface Envelope {
  remoteAddress: string;
  helo: string;
  /** "" for the null sender. */
  mailFrom: string;
  /** Accepted at RCPT TO, lowercased. */
  recipients: string[];
  secure: boolean;
  sessionId: string;
  receivedAt: Date;
}

export type Resolve = (name: string, rrtype: string) => Promise<unknown>;

/**
 * mailauth's DMARC verdict on the From domain, what the listener acts on (dmarc-policy.ts):
 * `result` as in Authentication-Results; `policy` the one its domain asks to apply (p, sp or
 * np, after t=y); `skipped` when DMARC could not be evaluated because From names no single
 * domain (RFC 9989 §5.3.1: several From fields, several domains, none).
 */
export interface DmarcVerdict {
  result: "pass" | "fail" | "none" | "temperror" | "permerror" | "skipped";
  domain?: string;
  policy?: string;
  /** Why DMARC was skipped, in mailauth's words (`multiple-author-domains`, ...). */
  reason?: string;
}

export interface Traced {
  raw: Buffer;
  dmarc: DmarcVerdict;
}

export async function traceHeaders(raw: Buffer, envelope: Envelope, mailHost: string, resolve: Resolve): Promise<Traced> {
  const cleaned = renameForgedResults(raw, mailHost);
  let authentication: string;
  let dmarc: DmarcVerdict = { result: "none" };
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
    dmarc = await dmarcVerdict(result as unknown as MailauthResult, resolve);
  } catch {
    // A message mailauth cannot read at all is still stored; say that nothing was verified.
    authentication = `Authentication-Results: ${mailHost}; none\r\n`;
  }
  const lines = [received(envelope, mailHost), authentication.replace(/\r?\n/g, "\r\n").replace(/(\r\n)?$/, "\r\n")];
  if (!hasHeader(cleaned, "message-id")) lines.push(`Message-ID: <${randomBytes(12).toString("hex")}@${mailHost}>\r\n`);
  return { raw: Buffer.concat([Buffer.from(lines.join(""), "utf8"), cleaned]), dmarc };
}

interface MailauthDmarcResponse {
  status: { result: string; header?: { from?: string } };
  domain?: string;
  policy?: string;
}

interface MailauthResult {
  dmarc: false | MailauthDmarcResponse;
  dmarcSkipReason?: string;
  spf?: false | { status: { result: string }; domain?: string };
  dkim?: { headerFrom?: string[]; results?: { id?: string; signingDomain: string; status: { result: string } }[] };
}

/** More author domains than this are not looked up one by one (a From of 1,000 domains). */
const MAX_AUTHOR_DOMAINS = 5;

async function dmarcVerdict(result: MailauthResult, resolve: Resolve): Promise<DmarcVerdict> {
  if (result.dmarc) return fromResponse(result.dmarc);
  if (!result.dmarcSkipReason) return { result: "none" };
  // mailauth does not evaluate a From of several domains (RFC 9989 §5.3.1). Each is evaluated
  // here on its own, with the message's SPF and DKIM passes: a domain among them that fails
  // with p=reject rejects the message, or `From: ceo@bank, x@elsewhere` would walk past the
  // bank's policy. Otherwise the message stays "skipped" (dmarc-policy.ts marks it).
  const skipped: DmarcVerdict = { result: "skipped", reason: result.dmarcSkipReason };
  const domains = [...new Set((result.dkim?.headerFrom ?? []).map((a) => a.slice(a.lastIndexOf("@") + 1).toLowerCase()).filter(Boolean))];
  const spfDomains = result.spf && result.spf.status.result === "pass" && result.spf.domain ? [result.spf.domain] : [];
  const dkimDomains = (result.dkim?.results ?? []).filter((r) => r.status.result === "pass").map((r) => ({ id: r.id, domain: r.signingDomain }));
  for (const domain of domains.slice(0, MAX_AUTHOR_DOMAINS)) {
    const response = (await verifyDmarc({ headerFrom: `postmaster@${domain}`, spfDomains, dkimDomains, resolver: resolve } as never).catch(() => false)) as false | MailauthDmarcResponse;
    if (response && response.status.result === "fail" && response.policy === "reject") return { ...fromResponse(response), domain, reason: result.dmarcSkipReason };
  }
  return skipped;
}

function fromResponse(response: MailauthDmarcResponse): DmarcVerdict {
  const { status, policy } = response;
  return { result: status.result as DmarcVerdict["result"], domain: status.header?.from ?? response.domain, ...(policy ? { policy } : {}) };
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
