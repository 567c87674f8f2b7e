// docx, xlsx, pptx (and their ODF cousins) and PDF text through officeparser, with its own limits
// set from the message's allowance. A password-protected document answers PASSWORD_REQUIRED;
// a legacy or broken file is reported as not inspected rather than passed.
import { parseOffice } from "officeparser";
import { type Budget, Uninspectable } from "./limits.ts";
import { type LayoutNode, pageText } from "./pdf-layout.ts";
import { tableText } from "./table.ts";

export interface OfficeText {
  text: string;
  /** Parts not read (PDF pages past the limit). */
  unread?: string;
  /** PNG and JPEG pictures of the document (embedded media, PDF page images), when asked for. */
  images: { name: string; data: Buffer }[];
  /** Pictures that could not be taken out of the document (officeparser's warning codes). */
  unreadImages: string[];
}

interface Node {
  type?: string;
  text?: string;
  children?: Node[];
  metadata?: { row?: number; col?: number };
}

/** A spreadsheet's sheets as rows of cells, each at its column: officeparser's text leaves empty cells out, so a value would move under another header. */
function sheetsOf(content: unknown): string[][][] {
  const sheets: string[][][] = [];
  for (const sheet of (Array.isArray(content) ? content : []) as Node[]) {
    if (sheet.type !== "sheet") continue;
    const rows: string[][] = [];
    for (const row of sheet.children ?? []) {
      if (row.type !== "row") continue;
      const cells: string[] = [];
      // Columns by their reference (an empty cell is absent from the row); at most Excel's 16,384.
      for (const [c, cell] of (row.children ?? []).entries()) cells[Math.min(cell.metadata?.col ?? c, 16_383)] = cell.text ?? "";
      rows.push(Array.from(cells, (c) => c ?? ""));
    }
    sheets.push(rows);
  }
  return sheets;
}

function hasTable(nodes: Node[] | undefined): boolean {
  for (const n of nodes ?? []) if (n.type === "table" || hasTable(n.children) || hasTable((n as { notes?: Node[] }).notes)) return true;
  return false;
}

/** The text of a node and everything under it, paragraphs on lines of their own. */
function nodeText(node: Node): string {
  if (!node.children?.length) return node.text ?? "";
  const inline = node.children.every((c) => c.type === "text" || c.type === "break");
  return node.children.map(nodeText).join(inline ? "" : "\n");
}

/**
 * A table of a Word, PowerPoint, ODF or RTF document (officeparser's table, row and cell nodes) as
 * rows of cells, each at its column (a merged cell keeps the column it starts at), read like a
 * sheet: each cell with its column's header and its row's label (table.ts). officeparser's own
 * text wrote the rows as lines, and the header above rows 2 and on was out of reach.
 */
export function documentTable(table: Node): string {
  const rows: string[][] = [];
  for (const row of table.children ?? []) {
    if (row.type !== "row") continue;
    const cells: string[] = [];
    for (const [c, cell] of (row.children ?? []).entries()) cells[Math.min(cell.metadata?.col ?? c, 16_383)] = nodeText(cell).trim();
    rows.push(Array.from(cells, (c) => c ?? ""));
  }
  return `\n${tableText(rows)}\n`;
}

const imageFailures = /^(?:ATTACHMENT_EXTRACTION_FAILED|IMAGE_EXTRACTION_FAILED|IMAGE_PROCESSING_FAILED)$/;

/** `images`: also take out the document's pictures (for OCR); officeparser counts their bytes against the same allowance. */
export async function officeText(buf: Buffer, budget: Budget, kind: "office" | "pdf", images = false): Promise<OfficeText> {
  const { maxPdfPages, maxEntries } = budget.limits;
  const signal = AbortSignal.timeout(Math.max(1, budget.msLeft()));
  try {
    const ast = await parseOffice(buf, {
      abortSignal: signal,
      // A PDF's text positions are kept: its pages are read as laid out (pdf-layout.ts).
      ignorePageGeometry: kind !== "pdf",
      extractAttachments: images,
      decompressionLimits: { maxUncompressedBytes: Math.max(1, budget.bytesLeft()), maxZipEntries: maxEntries },
      pdfParserConfig: { pageRange: `1-${maxPdfPages}`, extractTextColor: false, maxTimeMs: Math.min(30_000, budget.msLeft()) },
    });
    // Headers, footers, notes and comments are kept apart from the body (a marking usually sits in the header).
    // A spreadsheet is read as tables (each cell with its column's header and its row's label).
    const sheets = sheetsOf(ast.content);
    // Tables of the other formats are read the same way, where the text generator meets them.
    // Only when there is something to render differently: the hook is awaited on every node.
    const hook = kind === "pdf" || hasTable(ast.content as Node[]);
    const onNode = (node: Node) => (node.type === "page" && kind === "pdf" ? pageText(node as LayoutNode) : node.type === "table" ? documentTable(node) : undefined);
    const body = sheets.length ? sheets.map(tableText).join("\n\n") : ((await ast.to("text", hook ? ({ onNode } as never) : undefined)).value as string);
    const text = [body, ...auxiliaryTexts(ast.auxiliary)].join("\n");
    const pages = (ast.metadata as { pages?: number }).pages;
    const unread = kind === "pdf" && pages && pages > maxPdfPages ? `not inspected: pages ${maxPdfPages + 1} to ${pages} (limit ${maxPdfPages} pages)` : undefined;
    const cut = ast.warnings?.find((w) => /LIMIT_EXCEEDED/.test(String(w.code)));
    const pictures = (ast.attachments ?? []).filter((a) => a.type === "image" && /^image\/(?:png|jpeg)$/.test(a.mimeType));
    return {
      text,
      unread: unread ?? (cut ? `not inspected: part of the document (${cut.code})` : undefined),
      images: pictures.map((a) => ({ name: a.name, data: Buffer.from(a.data, "base64") })),
      unreadImages: (ast.warnings ?? []).map((w) => String(w.code)).filter((c) => imageFailures.test(c)),
    };
  } catch (error) {
    const code = (error as { officeIssue?: { code?: string } }).officeIssue?.code;
    if (code === "PASSWORD_REQUIRED" || code === "PASSWORD_INCORRECT") throw new Uninspectable(kind === "pdf" ? "password-protected PDF" : "password-protected document");
    if (signal.aborted) throw new Uninspectable(budget.spent);
    if (code && /LIMIT/.test(code)) throw new Uninspectable(`not inspected: ${code} (zip bomb limit)`);
    throw new Uninspectable(`not inspected: unreadable ${kind === "pdf" ? "PDF" : "document"}${code ? ` (${code})` : ""}`);
  }
}

/** The outermost `text` of each node under `auxiliary` (a paragraph's text already holds its runs'). */
function auxiliaryTexts(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) auxiliaryTexts(n, out);
  else if (node && typeof node === "object") {
    const text = (node as { text?: unknown }).text;
    if (typeof text === "string") out.push(text);
    else for (const v of Object.values(node)) auxiliaryTexts(v, out);
  }
  return out;
}
