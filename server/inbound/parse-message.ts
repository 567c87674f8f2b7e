// From the bytes on the wire to what the mailbox API serves. mailparser copes with broken MIME,
// unknown charsets and bad encodings (it decodes what it can); whatever it makes of a message is
// what gets indexed, and the raw bytes are kept as received.
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import { htmlToText } from "./html-text.ts";
import type { Address, MessageDetail, StoredMessage } from "./stored-message.ts";

export type { Address };

const PREVIEW_CHARS = 200;

// Only what the API serves: no HTML made from text, no links found in text, no text made from
// HTML (html-text.ts does that when there is no text part); no image is fetched.
const PARSER_OPTIONS = { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, skipHtmlToText: true } as const;

/** The whole of mailparser's answer: what a route handler gets. */
export async function parseMessage(raw: Buffer): Promise<ParsedMail> {
  return simpleParser(raw, PARSER_OPTIONS);
}

/** What toStoredMessage reads of a parsed message. */
export type IndexedParts = Pick<ParsedMail, "from" | "to" | "cc" | "subject" | "messageId" | "inReplyTo" | "references" | "headerLines" | "text" | "html" | "attachments">;

/**
 * What the store needs, the same as parseMessage gives (parse-message.test.ts compares them),
 * for less CPU when the message is one plain-text part: mailparser reads only its header section
 * and the text is the body as mailparser would decode it. Its streams cost as much for a 10 KB
 * body as for the header, and at the end of DATA every message waits on this CPU.
 */
export async function parseForIndex(raw: Buffer): Promise<IndexedParts> {
  const body = plainTextBodyStart(raw);
  if (body < 0) return parseMessage(raw);
  const head = await simpleParser(raw.subarray(0, body), PARSER_OPTIONS);
  if (!isPlainText(head)) return parseMessage(raw);
  // mailparser's text of a utf-8 or us-ascii part without transfer encoding; empty is no text part.
  const text = raw.subarray(body).toString().replace(/\r?\n/g, "\n") || undefined;
  return { ...head, text, html: false, attachments: [] };
}

/**
 * Where the body starts when the header section alone says the message is one plain-text part
 * that needs no decoding, else -1 (mailparser reads it all). A CRLF header only; any doubt
 * (another type, a charset to convert, a transfer encoding, a disposition, format=flowed)
 * declines.
 */
export function plainTextBodyStart(raw: Buffer): number {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return -1;
  const head = raw.subarray(0, end + 2).toString("latin1");
  // A bare CR or LF in the header: mailparser's line splitting decides, not us.
  if (/\r(?!\n)|(?<!\r)\n/.test(head)) return -1;
  const unfolded = head.replace(/\r\n(?=[ \t])/g, "");
  if (/^content-disposition[ \t]*:/im.test(unfolded)) return -1;
  const types = unfolded.match(/^content-type[ \t]*:.*$/gim) ?? [];
  if (types.length > 1 || (types.length === 1 && !/^content-type[ \t]*:[ \t]*text\/plain[ \t]*(;[ \t]*charset[ \t]*=[ \t]*"?(utf-8|us-ascii)"?[ \t]*;?[ \t]*)?\r?$/i.test(types[0]))) return -1;
  const encodings = unfolded.match(/^content-transfer-encoding[ \t]*:.*$/gim) ?? [];
  if (encodings.length > 1 || (encodings.length === 1 && !/^content-transfer-encoding[ \t]*:[ \t]*(7bit|8bit)[ \t]*\r?$/i.test(encodings[0]))) return -1;
  return end + 4;
}

/** mailparser's own reading of the header agrees: text/plain, no parameter but the charset. */
function isPlainText(head: ParsedMail): boolean {
  const type = head.headers.get("content-type") as { value: string; params: Record<string, string> } | undefined;
  if (!type) return true;
  return type.value === "text/plain" && Object.keys(type.params).every((name) => name === "charset");
}

/** The index and detail of a parsed message; `envelopeRecipients` join To and Cc for the `to` filter. */
export function toStoredMessage(raw: Buffer, parsed: IndexedParts, receivedMs: number, envelopeRecipients: string[]): StoredMessage {
  const from = addresses(parsed.from);
  const to = addresses(parsed.to);
  const cc = addresses(parsed.cc);
  const messageId = parsed.messageId ?? "";
  const html = typeof parsed.html === "string" ? parsed.html : null;
  const text = parsed.text || (html ? htmlToText(html) : "");
  const detail: MessageDetail = {
    messageId,
    inReplyTo: messageIds(parsed.inReplyTo),
    references: messageIds(parsed.references),
    to,
    text,
    html,
    headers: parsed.headerLines.map(({ line }) => header(line)),
  };
  return {
    raw,
    receivedMs,
    subject: parsed.subject ?? "",
    from,
    recipientAddresses: [...to, ...cc].map((a) => a.email).concat(envelopeRecipients),
    // Inline parts of multipart/related (images an HTML body shows) are not attachments to a reader.
    hasAttachment: parsed.attachments.some((a) => !a.related),
    rfcMessageId: stripBrackets(messageId),
    preview: preview(text),
    // The listener's DMARC verdict decides; the bytes alone do not say.
    quarantined: false,
    detail,
  };
}

/**
 * The first PREVIEW_CHARS characters of the text with whitespace runs made one space: read from a
 * prefix long enough (grown while it is not), not the whole text.
 */
export function preview(text: string): string {
  for (let take = 4 * PREVIEW_CHARS; ; take *= 4) {
    const collapsed = text.slice(0, take).replace(/\s+/g, " ").trimStart();
    // Past the preview's end the rest of the text changes nothing of it (a space at its end
    // stays, as it would with the whole text collapsed: one follows).
    if (collapsed.length > PREVIEW_CHARS) return collapsed.slice(0, PREVIEW_CHARS);
    if (take >= text.length) return collapsed.trimEnd().slice(0, PREVIEW_CHARS);
  }
}

export function stripBrackets(value: string): string {
  const v = value.trim();
  return v.startsWith("<") && v.endsWith(">") ? v.slice(1, -1).trim() : v;
}

function addresses(field: AddressObject | AddressObject[] | undefined): Address[] {
  const out: Address[] = [];
  const walk = (list: AddressObject["value"]) => {
    for (const a of list) {
      if (a.group) walk(a.group);
      else if (a.address) out.push(a.name ? { email: a.address, name: a.name } : { email: a.address });
    }
  };
  for (const obj of Array.isArray(field) ? field : field ? [field] : []) walk(obj.value);
  return out;
}

/** Message-IDs of In-Reply-To or References as written, each with its angle brackets. */
function messageIds(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(" ") : (value ?? "");
  return text.match(/<[^<>\s]+>/g) ?? [];
}

/** "Name: value" with folding undone; the value otherwise as written (encoded words kept). */
function header(line: string): { name: string; value: string } {
  const colon = line.indexOf(":");
  const name = colon < 0 ? line : line.slice(0, colon);
  const value = colon < 0 ? "" : line.slice(colon + 1).replace(/\r?\n(?=[ \t])/g, "").trim();
  return { name: name.trim(), value };
}
