// From the bytes on the wire to what the mailbox API serves. mailparser copes with broken MIME,
// unknown charsets and bad encodings (it decodes what it can); whatever it makes of a message is
// what gets indexed, and the raw bytes are kept as received.
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import type { MessageDetail, StoredMessage } from "./delivery-repository.ts";
import { htmlToText } from "./html-text.ts";

export interface Address {
  email: string;
  name?: string;
}

const PREVIEW_CHARS = 200;

export async function parseMessage(raw: Buffer): Promise<ParsedMail> {
  // Only what the API serves: no HTML made from text, no links found in text, no text made from
  // HTML (html-text.ts does that when there is no text part); no image is fetched.
  return simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, skipHtmlToText: true });
}

/** The index and detail of a parsed message; `envelopeRecipients` join To and Cc for the `to` filter. */
export function toStoredMessage(raw: Buffer, parsed: ParsedMail, receivedMs: number, envelopeRecipients: string[]): StoredMessage {
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
    preview: text.replace(/\s+/g, " ").trim().slice(0, PREVIEW_CHARS),
    detail,
  };
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
