// The containers a mail client opens for its reader: a gzip file (the client or the desktop
// unpacks it on a click), an attached message (message/rfc822, an .eml forwarded as attachment:
// shown inline with its own body, in base64 or quoted-printable, and its own attachments), and
// RFC 2047 encoded words in a subject or header (shown decoded).
import { promisify } from "node:util";
import { gunzip as gunzipCb } from "node:zlib";
import { simpleParser } from "mailparser";
import type { OutgoingContent } from "../dlp-port.ts";
import { type Budget, mb, Uninspectable } from "./limits.ts";

const inflate = promisify(gunzipCb);
const FLOOR = 1024 * 1024;

/** The file inside a gzip, and the name its header records (FNAME), under the message's inflate allowance and the ratio limit. */
export async function gunzip(buf: Buffer, budget: Budget): Promise<{ content: Buffer; name?: string }> {
  const { maxCompressionRatio } = budget.limits;
  const byRatio = Math.max(FLOOR, buf.length * maxCompressionRatio);
  const limit = Math.min(budget.bytesLeft(), byRatio);
  let content: Buffer;
  try {
    content = await inflate(buf, { maxOutputLength: Math.max(1, limit) });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new Uninspectable(limit === byRatio ? `not inspected: inflates more than ${maxCompressionRatio}:1 (zip bomb limit ${maxCompressionRatio}:1)` : `not inspected: inflates past ${mb(budget.limits.maxInflatedBytes)} (zip bomb limit)`);
    }
    throw new Uninspectable(`not inspected: unreadable gzip (${(error as Error).message})`);
  }
  budget.inflate(content.length);
  return { content, name: fileName(buf) };
}

/** FNAME of a gzip header (RFC 1952 2.3): after the 10 fixed bytes and FEXTRA, zero-terminated, Latin-1. */
function fileName(buf: Buffer): string | undefined {
  const flags = buf[3];
  if (!(flags & 0x08)) return undefined;
  let at = 10;
  if (flags & 0x04) at += 2 + buf.readUInt16LE(12);
  const end = buf.indexOf(0, at);
  if (end <= at) return undefined;
  return buf.subarray(at, end).toString("latin1").split(/[\\/]/).pop() || undefined;
}

// What the reader sees: no HTML made from text, no text made from HTML (both are scanned as they are).
const PARSER_OPTIONS = { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true, skipHtmlToText: true } as const;
// Header fields of an attached message that carry words for the reader (its structure fields, ids and signatures do not).
const shown = /^(?:from|to|cc|reply-to|sender|comments|keywords|organization|x-.*)$/i;

export async function parseAttachedMessage(raw: Buffer): Promise<OutgoingContent> {
  let parsed;
  try {
    parsed = await simpleParser(raw, PARSER_OPTIONS);
  } catch (error) {
    throw new Uninspectable(`not inspected: unreadable message (${(error as Error).message})`);
  }
  const headers: Record<string, string> = {};
  for (const line of parsed.headerLines) {
    if (!shown.test(line.key)) continue;
    const value = line.line.slice(line.line.indexOf(":") + 1).replace(/\r?\n[ \t]+/g, " ").trim();
    headers[line.key] = headers[line.key] ? `${headers[line.key]} ${value}` : value;
  }
  return {
    subject: parsed.subject,
    headers,
    text: parsed.text,
    html: typeof parsed.html === "string" ? parsed.html : undefined,
    attachments: parsed.attachments.map((a, i) => ({ filename: a.filename ?? `part-${i + 1}${a.contentType === "message/rfc822" ? ".eml" : ""}`, contentType: a.contentType, content: a.content })),
  };
}

/** A subject or header value as shown: RFC 2047 encoded words (=?utf-8?B?...?=) decoded by mailparser. */
export async function decodeHeader(value: string): Promise<string> {
  if (!value.includes("=?")) return value;
  const parsed = await simpleParser(Buffer.from(`Subject: ${value.replace(/[\r\n]+/g, " ")}\r\n\r\n`), PARSER_OPTIONS);
  return parsed.subject ?? value;
}
