// Attachments of a received message (decision M9), read from its stored bytes with mailparser, the
// parser the listener already uses, so the API, webmail and the `hasAttachment` flag agree on what
// an attachment is. Nothing is stored twice: a message keeps one copy of its bytes, and the parts
// are found again when asked for (a detail or a download), which costs a parse per request.
import { simpleParser, type Attachment } from "mailparser";

export interface AttachmentInfo {
  /** 1, 2, 3... in the order of the MIME parts: the id to download it. */
  id: string;
  filename: string;
  contentType: string;
  size: number;
  /** Shown by the HTML body itself (a `cid:` image of a multipart/related). */
  inline: boolean;
}

export interface AttachmentFile extends AttachmentInfo {
  content: Buffer;
}

async function parts(raw: Buffer): Promise<Attachment[]> {
  // skipHtmlToText/skipTextToHtml/skipTextLinks: only the parts are wanted, not the bodies' forms.
  const parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
  return parsed.attachments;
}

function info(a: Attachment, index: number): AttachmentInfo {
  const id = String(index + 1);
  return {
    id,
    filename: safeFilename(a.filename) || `attachment-${id}`,
    contentType: (a.contentType || "application/octet-stream").toLowerCase(),
    size: a.content.length,
    inline: a.related === true,
  };
}

export async function listAttachments(raw: Buffer): Promise<AttachmentInfo[]> {
  return (await parts(raw)).map(info);
}

export async function readAttachment(raw: Buffer, id: string): Promise<AttachmentFile | undefined> {
  if (!/^[1-9]\d{0,5}$/.test(id)) return undefined;
  const all = await parts(raw);
  const a = all[Number(id) - 1];
  return a && { ...info(a, Number(id) - 1), content: a.content };
}

/**
 * What a file system, a header or a reader would misread in a name, each replaced by `_`: path
 * separators, control characters (C0, DEL, C1), the bidirectional controls (Unicode's
 * Bidi_Control: U+061C, U+200E/U+200F, U+202A-U+202E, U+2066-U+2069), which reorder what is shown
 * so that `invoice<U+202E>gvs.exe` reads `invoiceexe.svg` (decision M10), and the line and
 * paragraph separators (U+2028/U+2029), which break a shown name in two.
 */
const MISREAD = /[\p{Cc}\p{Bidi_Control}\p{Zl}\p{Zp}/\\]/gu;

/** The sender's name without what would be misread (MISREAD) and a leading dot run; at most 255 characters. */
function safeFilename(name: string | undefined): string {
  if (!name) return "";
  const cleaned = name.replace(MISREAD, "_").replace(/^\.+/, "").trim();
  return [...cleaned].slice(0, 255).join("");
}

/**
 * RFC 6266 `attachment` with both forms of the name: an ASCII fallback (quotes, backslashes and
 * non-ASCII replaced) and `filename*` in UTF-8 for clients that read it.
 */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const utf8 = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}
