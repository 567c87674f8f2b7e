// The DLP scanner as a library: scanMessage(content, options) finds sensitive data in every
// place of one message a recipient can read: subject, custom headers, text, HTML, attachment
// names and attachments, opening what a mail client opens (zip, gzip, an attached message). No
// server, no database: the inspector (dlp-inspector.ts) runs it in worker threads (scan-pool.ts)
// under the project's policy.
import type { DlpFinding, DlpType, OutgoingAttachment, OutgoingContent } from "./dlp-port.ts";
import { detect, TEXT_TYPES } from "./detectors/index.ts";
import { decodeHeader, gunzip, parseAttachedMessage } from "./extract/containers.ts";
import { htmlText } from "./extract/html.ts";
import { jsonText } from "./extract/json.ts";
import { Budget, defaultLimits, type ScanLimits, Uninspectable } from "./extract/limits.ts";
import { normalizeText } from "./extract/normalize.ts";
import { ocrText } from "./extract/ocr.ts";
import { officeText, type OfficeText } from "./extract/office.ts";
import { archiveName, sniff } from "./extract/sniff.ts";
import { csvText } from "./extract/table.ts";
import { rtfText } from "./extract/rtf.ts";
import { readTar } from "./extract/tar.ts";
import { decodeText } from "./extract/text-encoding.ts";
import { openZip } from "./extract/zip.ts";
import { FindingCollector } from "./findings.ts";

import { ALL_TYPES } from "./policy-types.ts";

export interface ScanOptions {
  types?: readonly DlpType[];
  ocr?: boolean;
  limits?: Partial<ScanLimits>;
  /** Wall-clock time (ms since the epoch) by which the batch this message is part of must be done. */
  deadline?: number;
}

export interface ScanResult {
  findings: DlpFinding[];
  /** Findings left out of the list (more than 10 distinct values of a type at one place, or 100 in all). */
  truncated: number;
}

class MessageScan {
  readonly collector: FindingCollector;
  readonly budget: Budget;
  readonly types: ReadonlySet<DlpType>;
  readonly ocr: boolean;

  constructor(options: ScanOptions) {
    this.types = new Set(options.types ?? ALL_TYPES);
    this.collector = new FindingCollector(this.types);
    this.budget = new Budget({ ...defaultLimits, ...options.limits }, Date.now(), options.deadline);
    this.ocr = options.ocr ?? false;
  }

  text(where: string, text: string): void {
    const max = this.budget.limits.maxTextChars;
    if (text.length > max) {
      this.collector.uninspectable(where, `not inspected: text past ${max} characters`);
      text = text.slice(0, max);
    }
    // Matched as read: invisible characters out, every digit and space as its ASCII self (DLP9).
    text = normalizeText(text);
    this.collector.add(where, detect(text, this.types));
    if (/-----BEGIN PGP MESSAGE-----/.test(text)) this.collector.uninspectable(where, "PGP-encrypted message");
  }

  /**
   * A file name is read by the recipient too: scanned as text at the attachment's place, and
   * what it holds masked in every `where` that names it (the log must not carry the number).
   */
  name(parent: string, name: string): string {
    const normal = normalizeText(name);
    const found = detect(normal, this.types);
    if (found.length === 0) return name;
    let masked = "";
    let at = 0;
    for (const m of found) {
      masked += normal.slice(at, m.start) + m.masked;
      at = m.end;
    }
    masked += normal.slice(at);
    const path = parent ? `${parent}/${masked}` : masked;
    this.collector.add(`attachment:${path}`, found);
    return masked;
  }

  /** A message's readable parts: at `subject`, `header:<name>`, `text`, `html` at the top; at `attachment:<path>` for an attached message. */
  async message(content: OutgoingContent, path: string, depth: number): Promise<void> {
    const at = (part: string) => (path ? `attachment:${path}` : part);
    if (content.subject) this.text(at("subject"), await decodeHeader(content.subject));
    for (const [name, value] of Object.entries(content.headers ?? {})) if (value) this.text(at(`header:${name}`), `${name}: ${await decodeHeader(value)}`);
    if (content.text) this.text(at("text"), content.text);
    if (content.html) this.text(at("html"), htmlText(content.html));
    for (const a of content.attachments) await this.attachment(path, a, depth);
  }

  async attachment(parent: string, a: OutgoingAttachment, depth: number): Promise<void> {
    const name = this.name(parent, a.filename);
    await this.file(parent ? `${parent}/${name}` : name, a.content, depth, a.contentType, a.filename);
  }

  async file(path: string, buf: Buffer, depth: number, contentType?: string, filename = path): Promise<void> {
    const where = `attachment:${path}`;
    if (this.budget.expired()) return this.collector.uninspectable(where, this.budget.spent);
    try {
      const kind = sniff(buf, filename, contentType);
      switch (kind) {
        case "text":
          return this.text(where, decodeText(buf, contentType));
        case "csv":
          return this.text(where, csvText(decodeText(buf, contentType)));
        case "rtf":
          return this.text(where, rtfText(buf));
        case "html":
          return this.text(where, htmlText(decodeText(buf, contentType)));
        case "json": {
          const raw = decodeText(buf, contentType);
          return this.text(where, jsonText(raw) ?? raw);
        }
        case "pdf":
          return await this.document(path, await officeText(buf, this.budget, "pdf", this.ocr), pdfPicturePath);
        case "zip":
          return await this.zip(path, buf, depth);
        case "tar":
          return await this.tar(path, buf, depth);
        case "gzip": {
          // One compressed file: what the recipient opens is the attachment itself (DLP6).
          if (depth + 1 > this.budget.limits.maxDepth) throw new Uninspectable(`not inspected: archives nested deeper than ${this.budget.limits.maxDepth}`);
          const inner = await gunzip(buf, this.budget);
          return await this.file(path, inner.content, depth + 1, undefined, inner.name ?? filename.replace(/\.t?gz$/i, (e) => (e.toLowerCase() === ".tgz" ? ".tar" : "")));
        }
        case "message": {
          if (depth + 1 > this.budget.limits.maxDepth) throw new Uninspectable(`not inspected: messages nested deeper than ${this.budget.limits.maxDepth}`);
          this.budget.inflate(buf.length);
          return await this.message(await parseAttachedMessage(buf), path, depth + 1);
        }
        case "sealed":
          throw new Uninspectable("encrypted message or file (S/MIME or OpenPGP)");
        case "archive":
          throw new Uninspectable(`not inspected: ${archiveName(buf)} (no reader for this format)`);
        case "png":
        case "jpeg":
          if (!this.ocr) return;
          return await this.image(`ocr:${path}`, buf);
        case "cfb":
          // Encrypted OOXML is an OLE container holding an "EncryptedPackage" stream.
          throw new Uninspectable(buf.includes(Buffer.from("EncryptedPackage", "utf16le")) ? "password-protected document" : "not inspected: legacy binary Office format");
        case "binary":
          return;
      }
    } catch (error) {
      if (!(error instanceof Uninspectable)) throw error;
      this.collector.uninspectable(/^not inspected: OCR|image/.test(error.reason) ? `ocr:${path}` : where, error.reason);
    }
  }

  /** A document's text, then (OCR on) its pictures, each at `ocr:<document path>/<picture's inner path>`. */
  private async document(path: string, doc: OfficeText, inner: (name: string) => string): Promise<void> {
    const where = `attachment:${path}`;
    this.text(where, doc.text);
    if (doc.unread) this.collector.uninspectable(where, doc.unread);
    if (!this.ocr) return;
    for (const code of doc.unreadImages) this.collector.uninspectable(`ocr:${path}`, `not inspected: a picture of the document could not be read (${code})`);
    for (const picture of doc.images) await this.image(`ocr:${path}/${inner(picture.name)}`, picture.data);
  }

  /** OCR of one picture within its own time limit and what is left of the message's budget. */
  private async image(where: string, buf: Buffer): Promise<void> {
    if (this.budget.expired()) return this.collector.uninspectable(where, this.budget.spent);
    const { ocrTimeoutMs, maxImagePixels } = this.budget.limits;
    const left = this.budget.msLeft();
    try {
      this.text(where, await ocrText(buf, Math.min(ocrTimeoutMs, left), maxImagePixels, left < ocrTimeoutMs ? this.budget.spent : undefined));
    } catch (error) {
      if (!(error instanceof Uninspectable)) throw error;
      this.collector.uninspectable(where, error.reason);
    }
  }

  /** A tar's files, each at `attachment:<tar path>/<its path>`, scanned like a zip's entries. */
  private async tar(path: string, buf: Buffer, depth: number): Promise<void> {
    if (depth + 1 > this.budget.limits.maxDepth) throw new Uninspectable(`not inspected: archives nested deeper than ${this.budget.limits.maxDepth}`);
    for (const item of readTar(buf, this.budget)) {
      const inner = item.path ? `${path}/${this.name(path, item.path)}` : path;
      if (item.content instanceof Uninspectable) {
        this.collector.uninspectable(`attachment:${inner}`, item.content.reason);
        continue;
      }
      if (this.budget.expired()) {
        this.collector.uninspectable(`attachment:${inner}`, this.budget.spent);
        continue;
      }
      await this.file(inner, item.content, depth + 1, undefined, item.path);
    }
  }

  private async zip(path: string, buf: Buffer, depth: number): Promise<void> {
    const zip = await openZip(buf, this.budget);
    try {
      const names = new Set(zip.items.map((i) => i.path));
      if (names.has("[Content_Types].xml") || names.has("mimetype")) {
        // An office package: its parts are read by officeparser within the same allowance.
        for (const item of zip.items) if (item.encrypted) throw new Uninspectable("password-protected document");
        const doc = await officeText(buf, this.budget, "office", this.ocr);
        // officeparser names a picture by its file name: give it back its part's path in the package.
        const media = zip.items.map((i) => i.path).filter((p) => /(?:^|\/)media\//.test(p));
        return await this.document(path, doc, (name) => media.find((p) => p.endsWith(`/${name}`)) ?? name);
      }
      if (depth + 1 > this.budget.limits.maxDepth) throw new Uninspectable(`not inspected: archives nested deeper than ${this.budget.limits.maxDepth}`);
      for (const item of zip.items) {
        const inner = `${path}/${this.name(path, item.path)}`;
        if (item.encrypted) {
          this.collector.uninspectable(`attachment:${inner}`, "password-protected zip entry");
          continue;
        }
        if (this.budget.expired()) {
          this.collector.uninspectable(`attachment:${inner}`, this.budget.spent);
          continue;
        }
        let content: Buffer;
        try {
          content = await zip.read(item);
        } catch (error) {
          if (!(error instanceof Uninspectable)) throw error;
          this.collector.uninspectable(`attachment:${inner}`, error.reason);
          continue;
        }
        await this.file(inner, content, depth + 1, undefined, item.path);
      }
    } finally {
      zip.close();
    }
  }
}

/** officeparser's `pdf_image_p3_2.png` (page 3, second picture) as `page-3/image-2.png`. */
const pdfPicturePath = (name: string) => name.replace(/^pdf_image_p(\d+)_(\d+)\.(\w+)$/, "page-$1/image-$2.$3");

export async function scanMessage(content: OutgoingContent, options: ScanOptions = {}): Promise<ScanResult> {
  const scan = new MessageScan(options);
  await scan.message(content, "", 0);
  return scan.collector.result();
}

export { TEXT_TYPES };
