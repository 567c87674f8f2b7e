// Builds the corpus's files at test time with the libraries real producers use (docx, pdf-lib,
// jszip), including the encrypted forms the scanner must report: a ZipCrypto zip entry, a PDF
// under the standard security handler, and an OLE container holding an EncryptedPackage.
import { crc32 } from "node:zlib";
import { Document, ImageRun, Packer, Paragraph, Header, TextRun } from "docx";
import JSZip from "jszip";
import { PDFDocument, PDFName, PDFHexString, StandardFonts } from "pdf-lib";

/** `pictures`: PNGs placed after the text, as a pasted screenshot or scan would be (word/media/). */
export async function docx(lines: string[], header?: string, pictures: Buffer[] = []): Promise<Buffer> {
  const images = pictures.map((data) => new Paragraph({ children: [new ImageRun({ type: "png", data, transformation: { width: 450, height: 100 } })] }));
  const doc = new Document({
    sections: [{
      headers: header ? { default: new Header({ children: [new Paragraph({ children: [new TextRun(header)] })] }) } : undefined,
      children: [...lines.map((l) => new Paragraph(l)), ...images],
    }],
  });
  return Packer.toBuffer(doc);
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A workbook with one sheet of inline-string cells (numbers as numeric cells, as Excel stores a typed number); `pictures` go to xl/media/. */
export async function xlsx(rows: (string | number)[][], pictures: Buffer[] = []): Promise<Buffer> {
  const zip = new JSZip();
  pictures.forEach((data, i) => zip.file(`xl/media/image${i + 1}.png`, data));
  zip.file("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="png" ContentType="image/png"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`);
  zip.file("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`);
  zip.file("xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`);
  zip.file("xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`);
  const col = (i: number) => String.fromCharCode(65 + i);
  const sheetRows = rows.map((r, ri) => `<row r="${ri + 1}">${r.map((c, ci) => (typeof c === "number" ? `<c r="${col(ci)}${ri + 1}"><v>${c}</v></c>` : `<c r="${col(ci)}${ri + 1}" t="inlineStr"><is><t>${esc(c)}</t></is></c>`)).join("")}</row>`).join("");
  zip.file("xl/worksheets/sheet1.xml", `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetRows}</sheetData></worksheet>`);
  return zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE" });
}

/** A presentation with one slide holding one text box per line; `pictures` go to ppt/media/. */
export async function pptx(lines: string[], pictures: Buffer[] = []): Promise<Buffer> {
  const zip = new JSZip();
  pictures.forEach((data, i) => zip.file(`ppt/media/image${i + 1}.png`, data));
  const p = "http://schemas.openxmlformats.org/presentationml/2006/main";
  const a = "http://schemas.openxmlformats.org/drawingml/2006/main";
  const r = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  zip.file("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="png" ContentType="image/png"/><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/><Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/></Types>`);
  zip.file("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="ppt/presentation.xml"/></Relationships>`);
  zip.file("ppt/presentation.xml", `<?xml version="1.0" encoding="UTF-8"?><p:presentation xmlns:p="${p}" xmlns:a="${a}" xmlns:r="${r}"><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>`);
  zip.file("ppt/_rels/presentation.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>`);
  const shapes = lines.map((l, i) => `<p:sp><p:nvSpPr><p:cNvPr id="${i + 2}" name="T${i}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${esc(l)}</a:t></a:r></a:p></p:txBody></p:sp>`).join("");
  zip.file("ppt/slides/slide1.xml", `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:p="${p}" xmlns:a="${a}" xmlns:r="${r}"><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${shapes}</p:spTree></p:cSld></p:sld>`);
  return zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE" });
}

/** Standard PDF fonts speak WinAnsi: letters outside it are written as their nearest Latin letter. */
export function winAnsi(s: string): string {
  return s.replace(/[əƏşŞğĞıİ]/g, (c) => ({ ə: "e", Ə: "E", ş: "s", Ş: "S", ğ: "g", Ğ: "G", ı: "i", İ: "I" })[c] ?? c);
}

/** `pictures`: PNGs drawn on the first page below the text, as a scanned form would hold them. */
export async function pdf(lines: string[], options: { pages?: number; encrypt?: boolean; pictures?: Buffer[] } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < (options.pages ?? 1); p++) {
    const page = doc.addPage();
    lines.forEach((l, i) => page.drawText(winAnsi(l), { x: 40, y: 780 - i * 16, size: 10, font }));
  }
  for (const [i, data] of (options.pictures ?? []).entries()) {
    const image = await doc.embedPng(data);
    doc.getPage(0).drawImage(image, { x: 40, y: 600 - i * 160, width: image.width / 2, height: image.height / 2 });
  }
  if (options.encrypt) {
    // The standard security handler (RC4, revision 2) with owner and user hashes that no empty
    // password opens: readers must ask for a password.
    const encrypt = doc.context.obj({ Filter: PDFName.of("Standard"), V: 1, R: 2, Length: 40, P: -44, O: PDFHexString.of("a".repeat(64)), U: PDFHexString.of("b".repeat(64)) });
    doc.context.trailerInfo.Encrypt = doc.context.register(encrypt);
    doc.context.trailerInfo.ID = doc.context.obj([PDFHexString.of("0123456789abcdef0123456789abcdef"), PDFHexString.of("0123456789abcdef0123456789abcdef")]);
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

// ZipCrypto (PKWARE traditional encryption), so the encrypted entry is a real one.
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function zipCrypto(data: Buffer, password: string, crc: number): Buffer {
  const keys = [0x12345678, 0x23456789, 0x34567890];
  const update = (b: number) => {
    keys[0] = (crcTable[(keys[0] ^ b) & 0xff] ^ (keys[0] >>> 8)) >>> 0;
    keys[1] = (Math.imul((keys[1] + (keys[0] & 0xff)) >>> 0, 134775813) + 1) >>> 0;
    keys[2] = (crcTable[(keys[2] ^ (keys[1] >>> 24)) & 0xff] ^ (keys[2] >>> 8)) >>> 0;
  };
  for (const c of Buffer.from(password)) update(c);
  const header = Buffer.alloc(12, 7);
  header[11] = (crc >>> 24) & 0xff;
  const plain = Buffer.concat([header, data]);
  const out = Buffer.alloc(plain.length);
  for (let i = 0; i < plain.length; i++) {
    const t = (keys[2] | 2) & 0xffff;
    out[i] = plain[i] ^ ((Math.imul(t, t ^ 1) >>> 8) & 0xff);
    update(plain[i]);
  }
  return out;
}

export interface ZipEntryInput {
  name: string;
  data: Buffer | string;
  password?: string;
}

/** A stored (uncompressed) zip, written by hand so entries can be really encrypted. */
export function storedZip(entries: ZipEntryInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data);
    const crc = crc32(data) >>> 0;
    const body = e.password ? zipCrypto(data, e.password, crc) : data;
    const name = Buffer.from(e.name);
    const flags = e.password ? 1 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(20, 4); local.writeUInt16LE(flags, 6); local.writeUInt16LE(0, 8);
    local.writeUInt32LE(crc, 14); local.writeUInt32LE(body.length, 18); local.writeUInt32LE(data.length, 22); local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0); central.writeUInt16LE(20, 4); central.writeUInt16LE(20, 6); central.writeUInt16LE(flags, 8);
    central.writeUInt32LE(crc, 16); central.writeUInt32LE(body.length, 20); central.writeUInt32LE(data.length, 24); central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(entries.length, 8); end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A deflated zip (jszip), optionally claiming one entry of `bombBytes` zeros. */
export async function deflatedZip(entries: { name: string; data: Buffer | string }[]): Promise<Buffer> {
  const zip = new JSZip();
  for (const e of entries) zip.file(e.name, e.data);
  return zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE", compressionOptions: { level: 9 } });
}

/**
 * An OLE compound file as Office writes a password-protected OOXML document: a directory naming
 * the EncryptionInfo and EncryptedPackage streams (their content is not needed to tell).
 */
export function encryptedOoxml(): Buffer {
  const sector = 512;
  const header = Buffer.alloc(sector);
  Buffer.from("d0cf11e0a1b11ae1", "hex").copy(header, 0);
  header.writeUInt16LE(0x3e, 24); header.writeUInt16LE(3, 26); header.writeUInt16LE(0xfffe, 28); header.writeUInt16LE(9, 30); header.writeUInt16LE(6, 32);
  header.writeUInt32LE(1, 44); // one FAT sector
  header.writeUInt32LE(1, 48); // directory starts at sector 1
  header.writeUInt32LE(4096, 56);
  header.writeUInt32LE(0xfffffffe, 60); header.writeUInt32LE(0xfffffffe, 68);
  header.writeUInt32LE(0, 76); // FAT in sector 0
  for (let i = 1; i < 109; i++) header.writeUInt32LE(0xffffffff, 76 + i * 4);
  const fat = Buffer.alloc(sector, 0xff);
  fat.writeUInt32LE(0xfffffffd, 0); fat.writeUInt32LE(0xfffffffe, 4);
  const dir = Buffer.alloc(sector);
  const entry = (i: number, name: string, type: number) => {
    const n = Buffer.from(`${name}\0`, "utf16le");
    n.copy(dir, i * 128);
    dir.writeUInt16LE(n.length, i * 128 + 64);
    dir[i * 128 + 66] = type;
    dir.writeUInt32LE(0xffffffff, i * 128 + 68); dir.writeUInt32LE(0xffffffff, i * 128 + 72); dir.writeUInt32LE(0xffffffff, i * 128 + 76);
    dir.writeUInt32LE(0xfffffffe, i * 128 + 116);
  };
  entry(0, "Root Entry", 5);
  entry(1, "EncryptionInfo", 2);
  entry(2, "EncryptedPackage", 2);
  dir.writeUInt32LE(1, 76); // root's child
  dir.writeUInt32LE(2, 128 + 72); // right sibling
  return Buffer.concat([header, fat, dir]);
}

/** Text as RTF writes it: ASCII as is, every other character as \uN? (signed 16-bit, a "?" fallback), braces and backslashes escaped. */
export function rtfEscape(s: string): string {
  let out = "";
  // UTF-16 units, as RTF's \uN counts them (a character past U+FFFF is its two surrogates).
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const unit = s.charCodeAt(i);
    if (c === "\\" || c === "{" || c === "}") out += `\\${c}`;
    else if (unit < 0x80) out += c;
    else out += `\\u${unit > 0x7fff ? unit - 0x10000 : unit}?`;
  }
  return out;
}

/**
 * An RTF document as Word and WordPad write one: a font and colour table, one paragraph per line
 * (`\par`), and `tables` as `\trowd ... \cell ... \row` rows after the lines. Lines are escaped
 * with rtfEscape unless `raw` (already RTF).
 */
export function rtf(lines: string[], options: { tables?: string[][][]; raw?: boolean; codepage?: number } = {}): Buffer {
  const text = (s: string) => (options.raw ? s : rtfEscape(s));
  const head = `{\\rtf1\\ansi\\ansicpg${options.codepage ?? 1252}\\deff0\\nouicompat{\\fonttbl{\\f0\\fnil\\fcharset0 Calibri;}{\\f1\\fnil\\fcharset204 Arial;}}\r\n{\\colortbl ;\\red255\\green0\\blue0;}\r\n{\\*\\generator Riched20 10.0.19041}\\viewkind4\\uc1 \r\n`;
  const body = lines.map((l) => `\\pard\\sa200\\sl276\\slmult1\\f0\\fs22\\lang9 ${text(l)}\\par\r\n`).join("");
  const tables = (options.tables ?? [])
    .map((rows) =>
      rows
        .map((row) => {
          const cells = row.map((_, i) => `\\clbrdrt\\brdrs\\cellx${(i + 1) * 2000}`).join("");
          return `\\trowd\\trgaph108\\trleft-108${cells}\r\n${row.map((c) => `\\pard\\intbl ${text(c)}\\cell`).join("")}\\row\r\n`;
        })
        .join("") + "\\pard\\par\r\n",
    )
    .join("");
  return Buffer.from(`${head}${body}${tables}}`, "latin1");
}

/** A Word document with `tables` between `lines` and `after` (a header row first, as Word writes it). */
export async function docxTables(lines: string[], tables: string[][][], after: string[] = []): Promise<Buffer> {
  const { Table, TableRow, TableCell } = await import("docx");
  const built = tables.map((rows) => new Table({ rows: rows.map((r) => new TableRow({ children: r.map((c) => new TableCell({ children: c.split("\n").map((p) => new Paragraph(p)) })) })) }));
  const children = [...lines.map((l) => new Paragraph(l)), ...built.flatMap((t) => [t, new Paragraph("")]), ...after.map((l) => new Paragraph(l))];
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}

const tableXml = (rows: string[][]) =>
  `<a:tbl><a:tblGrid>${rows[0].map(() => `<a:gridCol w="2000000"/>`).join("")}</a:tblGrid>${rows.map((r) => `<a:tr h="370840">${r.map((c) => `<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>${esc(c)}</a:t></a:r></a:p></a:txBody></a:tc>`).join("")}</a:tr>`).join("")}</a:tbl>`;
const frame = (id: number, rows: string[][]) =>
  `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="${id}" name="Table ${id}"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm><a:off x="0" y="${id * 100000}"/><a:ext cx="6000000" cy="1000000"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table">${tableXml(rows)}</a:graphicData></a:graphic></p:graphicFrame>`;

/** A presentation of one slide: a title, `table` in a table frame on the slide, and the speaker notes (`notes` lines, `notesTable` as a table in them). */
export async function pptxTable(title: string, table: string[][] | undefined, notes: string[] = [], notesTable?: string[][]): Promise<Buffer> {
  const zip = new JSZip();
  const p = "http://schemas.openxmlformats.org/presentationml/2006/main";
  const a = "http://schemas.openxmlformats.org/drawingml/2006/main";
  const r = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  zip.file("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/><Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/><Override PartName="/ppt/notesSlides/notesSlide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml"/></Types>`);
  zip.file("_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="ppt/presentation.xml"/></Relationships>`);
  zip.file("ppt/presentation.xml", `<?xml version="1.0" encoding="UTF-8"?><p:presentation xmlns:p="${p}" xmlns:a="${a}" xmlns:r="${r}"><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>`);
  zip.file("ppt/_rels/presentation.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId2" Type="${rel}/slide" Target="slides/slide1.xml"/></Relationships>`);
  const text = (id: number, l: string) => `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="T${id}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:p><a:r><a:t>${esc(l)}</a:t></a:r></a:p></p:txBody></p:sp>`;
  const tree = (inner: string) => `<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${inner}</p:spTree></p:cSld>`;
  zip.file("ppt/slides/slide1.xml", `<?xml version="1.0" encoding="UTF-8"?><p:sld xmlns:p="${p}" xmlns:a="${a}" xmlns:r="${r}">${tree(text(2, title) + (table ? frame(3, table) : ""))}</p:sld>`);
  zip.file("ppt/slides/_rels/slide1.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/notesSlide" Target="../notesSlides/notesSlide1.xml"/></Relationships>`);
  zip.file("ppt/notesSlides/notesSlide1.xml", `<?xml version="1.0" encoding="UTF-8"?><p:notes xmlns:p="${p}" xmlns:a="${a}" xmlns:r="${r}">${tree(notes.map((l, i) => text(10 + i, l)).join("") + (notesTable ? frame(30, notesTable) : ""))}</p:notes>`);
  zip.file("ppt/notesSlides/_rels/notesSlide1.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${rel}/slide" Target="../slides/slide1.xml"/></Relationships>`);
  return zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE" });
}

/** An OpenDocument text (.odt) with `lines` and `tables` after them, as LibreOffice writes them (header rows in table:table-header-rows). */
export async function odt(lines: string[], tables: string[][][] = []): Promise<Buffer> {
  const zip = new JSZip();
  zip.file("mimetype", "application/vnd.oasis.opendocument.text", { compression: "STORE" });
  zip.file("META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`);
  const row = (r: string[]) => `<table:table-row>${r.map((c) => `<table:table-cell office:value-type="string"><text:p>${esc(c)}</text:p></table:table-cell>`).join("")}</table:table-row>`;
  const tbl = (rows: string[][], i: number) => `<table:table table:name="Table${i + 1}"><table:table-column table:number-columns-repeated="${rows[0].length}"/><table:table-header-rows>${row(rows[0])}</table:table-header-rows>${rows.slice(1).map(row).join("")}</table:table>`;
  zip.file("content.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.3"><office:body><office:text>${lines.map((l) => `<text:p>${esc(l)}</text:p>`).join("")}${tables.map(tbl).join("")}</office:text></office:body></office:document-content>`);
  return zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE", mimeType: "application/vnd.oasis.opendocument.text" });
}

/** A PDF whose text is drawn at given positions, in the order given (the content stream's order, which need not be the reading order). */
export async function pdfAt(pages: { text: string; x: number; y: number; size?: number }[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const items of pages) {
    const page = doc.addPage([612, 792]);
    for (const it of items) page.drawText(winAnsi(it.text), { x: it.x, y: it.y, size: it.size ?? 10, font });
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** A Luhn-valid number of `length` digits starting with `prefix` (the rest from `seed`), for tables of many cards. */
export function luhnNumber(prefix: string, length: number, seed: number): string {
  let body = prefix;
  for (let i = 0; body.length < length - 1; i++) body += String((seed * 7 + i * 3 + (seed >> 2)) % 10);
  for (let d = 0; d < 10; d++) {
    const n = body + d;
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let v = Number(n[n.length - 1 - i]);
      if (i % 2 === 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
      sum += v;
    }
    if (sum % 10 === 0) return n;
  }
  throw new Error("unreachable");
}
