// The DLP scanner as a library: scanMessage(content, options) finds sensitive data in the
// subject, text, HTML and attachments of one message. No server, no database: the inspector
// (dlp-inspector.ts) runs it in worker threads (scan-pool.ts) under the project's policy.
import type { DlpFinding, DlpType, OutgoingContent } from "./dlp-port.ts";
import { detect, TEXT_TYPES } from "./detectors/index.ts";
import { csvText } from "./extract/csv.ts";
import { htmlText } from "./extract/html.ts";
import { Budget, defaultLimits, type ScanLimits, Uninspectable } from "./extract/limits.ts";
import { ocrText } from "./extract/ocr.ts";
import { officeText } from "./extract/office.ts";
import { sniff } from "./extract/sniff.ts";
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
    this.collector.add(where, detect(text, this.types));
  }

  async file(path: string, buf: Buffer, depth: number, contentType?: string): Promise<void> {
    const where = `attachment:${path}`;
    if (this.budget.expired()) return this.collector.uninspectable(where, this.budget.spent);
    try {
      const kind = sniff(buf, path, contentType);
      switch (kind) {
        case "text":
          return this.text(where, buf.toString("utf8"));
        case "csv":
          return this.text(where, csvText(buf.toString("utf8")));
        case "html":
          return this.text(where, htmlText(buf.toString("utf8")));
        case "pdf":
          return this.document(where, await officeText(buf, this.budget, "pdf"));
        case "zip":
          return await this.zip(path, buf, depth);
        case "png":
        case "jpeg":
          if (!this.ocr) return;
          return this.text(`ocr:${path}`, await ocrText(buf, this.budget.limits.ocrTimeoutMs, this.budget.limits.maxImagePixels));
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

  private document(where: string, doc: { text: string; unread?: string }): void {
    this.text(where, doc.text);
    if (doc.unread) this.collector.uninspectable(where, doc.unread);
  }

  private async zip(path: string, buf: Buffer, depth: number): Promise<void> {
    const zip = await openZip(buf, this.budget);
    try {
      const names = new Set(zip.items.map((i) => i.path));
      if (names.has("[Content_Types].xml") || names.has("mimetype")) {
        // An office package: its parts are read by officeparser within the same allowance.
        for (const item of zip.items) if (item.encrypted) throw new Uninspectable("password-protected document");
        const doc = await officeText(buf, this.budget, "office");
        // Spreadsheets come out as tab-separated rows: label each cell with its column's header.
        if (names.has("xl/workbook.xml") || /^[^\n]*\t/.test(doc.text)) doc.text = csvText(doc.text);
        return this.document(`attachment:${path}`, doc);
      }
      if (depth + 1 > this.budget.limits.maxDepth) throw new Uninspectable(`not inspected: archives nested deeper than ${this.budget.limits.maxDepth}`);
      for (const item of zip.items) {
        const inner = `${path}/${item.path}`;
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
        await this.file(inner, content, depth + 1);
      }
    } finally {
      zip.close();
    }
  }
}

export async function scanMessage(content: OutgoingContent, options: ScanOptions = {}): Promise<ScanResult> {
  const scan = new MessageScan(options);
  if (content.subject) scan.text("subject", content.subject);
  if (content.text) scan.text("text", content.text);
  if (content.html) scan.text("html", htmlText(content.html));
  for (const a of content.attachments) await scan.file(a.filename, a.content, 0, a.contentType);
  return scan.collector.result();
}

export { TEXT_TYPES };
