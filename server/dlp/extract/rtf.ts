// RTF as its reader sees it. RTF is 7-bit text with escapes, and read as raw text it hides what it
// says: `F\u304?N` is FİN, `\'cf\'e0\'f1\'ef\'ee\'f0\'f2` in \ansicpg1251 is Паспорт, and
// `{\b 4111} 1111` is one run of digits split by a formatting group. So an RTF file is decoded
// once, here, into the text it renders:
//  - \uN is the UTF-16 unit N (negative N counts from 65536), followed by \ucN fallback
//    characters (default 1) that are skipped; \ucN is scoped to its group,
//  - \'hh is a byte in the code page of the current font (\fN with \fcharsetN or \cpgN in the font
//    table), else of the document (\ansicpgN); runs of bytes are decoded together (Shift-JIS, GBK),
//  - groups are scopes only: `{\b 51}` adds no break, so digits on both sides stay one number,
//  - destinations that are not text are skipped (\fonttbl once read for its code pages,
//    \colortbl, \stylesheet, pictures and objects, \*\... that are not known to carry text),
//    while headers, footers, footnotes, \info fields and field instructions (a link's URL) are read,
//  - \par, \line, \sect, \page are line breaks, \tab a tab, \~ a no-break space, \_ a no-break
//    hyphen, \- (optional hyphen) nothing, \emdash, \endash, \bullet and the quotes their characters,
//  - tables (\intbl paragraphs, \cell, \row, \nestcell, \nestrow) as rows of cells, read by
//    table.ts like every other table: each cell with its column header and row label.
// Written here rather than through officeparser's RTF reader: that one reads the escapes right but
// renders \~ as "~" and \_ as "_" (a card written 4111\~1111\~... became 4111~1111~...), and takes
// 3 to 6 times as long on a 1 MB file (server/dlp/README.md, benchmarks); no maintained RTF
// package on npm reads tables.
import { tableText } from "./table.ts";

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number) => c >= 48 && c <= 57;
const isHex = (c: number) => isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
const special = /[\\{}\r\n]/g;

/** Destinations read as text; every other \* destination is skipped. */
const textDestinations = new Set(["fldinst", "fldrslt", "header", "headerl", "headerr", "headerf", "footer", "footerl", "footerr", "footerf", "footnote", "annotation", "atnauthor", "title", "subject", "author", "keywords", "doccomm", "comment", "company", "manager", "category", "pntext", "pntxta", "pntxtb", "shptxt", "txbxcontent", "sp", "sv"]);
/** Destinations that are never text (RTF 1.9.1 and what Word writes). */
const skipped = new Set(["fonttbl", "colortbl", "stylesheet", "listtable", "listoverridetable", "revtbl", "rsidtbl", "generator", "pict", "object", "objdata", "themedata", "colorschememapping", "datastore", "latentstyles", "xmlnstbl", "bkmkstart", "bkmkend", "filetbl", "pgdsctbl", "mmathPr", "xe", "tc", "bin", "nonshppict", "private", "userprops", "operator", "creatim", "revtim", "printim", "buptim", "wgrffmtfilter", "listtext", "ftnsep", "ftnsepc", "aftnsep", "aftnsepc", "passwordhash", "protusertbl", "fchars", "lchars"]);
/** \info's fields that hold text; \info itself holds only them and dates. */
const infoText = new Set(["title", "subject", "author", "keywords", "doccomm", "comment", "company", "manager", "category", "operator"]);

const symbols: Record<string, string> = { emdash: "\u2014", endash: "\u2013", bullet: "\u2022", lquote: "\u2018", rquote: "\u2019", ldblquote: "\u201c", rdblquote: "\u201d", emspace: " ", enspace: " ", qmspace: " ", zwj: "", zwnj: "", ltrmark: "", rtlmark: "" };
/** Every control word this reader acts on; the others only format. */
const meaningful = new Set([...textDestinations, ...skipped, ...infoText, ...Object.keys(symbols), "bin", "fonttbl", "info", "f", "fcharset", "cpg", "u", "uc", "ansicpg", "par", "line", "sect", "page", "tab", "pard", "intbl", "cell", "nestcell", "row", "nestrow"]);

/** \fcharsetN to its Windows code page. */
const charsets: Record<number, number> = { 77: 10000, 128: 932, 129: 949, 134: 936, 136: 950, 161: 1253, 162: 1254, 163: 1258, 177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874, 238: 1250 };
const codepageLabels: Record<number, string> = { 874: "windows-874", 932: "shift_jis", 936: "gbk", 949: "euc-kr", 950: "big5", 10000: "macintosh", 866: "ibm866", 20866: "koi8-r", 28591: "iso-8859-1", 65001: "utf-8" };

const decoders = new Map<number, TextDecoder>();
function decoder(codepage: number): TextDecoder {
  let d = decoders.get(codepage);
  if (!d) {
    const label = codepageLabels[codepage] ?? (codepage >= 1250 && codepage <= 1258 ? `windows-${codepage}` : "windows-1252");
    try {
      d = new TextDecoder(label);
    } catch {
      d = new TextDecoder("windows-1252");
    }
    decoders.set(codepage, d);
  }
  return d;
}

interface Group {
  uc: number;
  /** 0 text, 1 skipped, 2 the font table (read for code pages only). */
  mode: 0 | 1 | 2;
  font?: number;
  /** Inside \info: only its text fields are read. */
  info: boolean;
  /** A destination of its own (a header, a field's instruction, a title): a line break when it ends. */
  apart?: boolean;
}

export function rtfText(input: Buffer | string): string {
  const src = typeof input === "string" ? input : input.toString("latin1");
  const out: string[] = [];
  let g: Group = { uc: 1, mode: 0, info: false };
  const stack: Group[] = [];
  let ansi = 1252;
  const fontPage = new Map<number, number>();
  let tableFont: number | undefined;
  let font: number | undefined;
  let skip = 0;
  let bytes: number[] = [];
  let pendingDest = false;
  // Table state: paragraphs marked \intbl collect into the cell; \cell ends it, \row the row.
  let inTable = false;
  let cell: string[] = [];
  let row: string[] = [];
  let rows: string[][] = [];

  const page = () => (font !== undefined ? (fontPage.get(font) ?? ansi) : ansi);
  const sink = () => (inTable ? cell : out);
  const flushBytes = () => {
    if (!bytes.length) return;
    sink().push(decoder(page()).decode(Uint8Array.from(bytes)));
    bytes = [];
  };
  const emit = (s: string) => {
    flushBytes();
    if (g.mode !== 0 || g.info) return;
    // Text after a table's last row, outside \intbl: the table is done.
    if (!inTable && rows.length && s.trim()) flushTable();
    sink().push(s);
  };
  const flushTable = () => {
    if (cell.length && cell.join("").trim()) row.push(cell.join(""));
    if (row.length) rows.push(row);
    if (rows.length) out.push(`\n${tableText(rows)}\n`);
    cell = [];
    row = [];
    rows = [];
  };

  for (let at = 0; at < src.length; ) {
    // Plain text and braces are found by their character, control words by a sticky pattern:
    // a megabyte of RTF is some hundred thousand tokens.
    const c = src.charCodeAt(at);
    let word: string | undefined;
    let param: string | undefined;
    let hex: string | undefined;
    let symbol: string | undefined;
    let brace: string | undefined;
    let text: string | undefined;
    if (c === 92) {
      // A control word (\letters, an optional signed number, one space eaten), \'hh, or a
      // control symbol; read by hand, as a match array per token is most of the garbage.
      const next = src.charCodeAt(at + 1);
      if (isLetter(next)) {
        let e = at + 2;
        while (e < at + 33 && isLetter(src.charCodeAt(e))) e++;
        word = src.slice(at + 1, e);
        let d = src.charCodeAt(e) === 45 && isDigit(src.charCodeAt(e + 1)) ? e + 1 : e;
        const digitsFrom = d;
        while (d < digitsFrom + 10 && isDigit(src.charCodeAt(d))) d++;
        if (d > digitsFrom) param = src.slice(e, d);
        at = src.charCodeAt(d) === 32 ? d + 1 : d;
      } else if (next === 39) {
        if (isHex(src.charCodeAt(at + 2)) && isHex(src.charCodeAt(at + 3))) hex = src.slice(at + 2, at + 4);
        at += hex ? 4 : 2;
        if (!hex) continue;
      } else if (Number.isNaN(next)) {
        // A lone backslash at the end: nothing more to read.
        break;
      } else {
        symbol = src[at + 1];
        at += 2;
      }
    } else if (c === 123 || c === 125) {
      brace = c === 123 ? "{" : "}";
      at++;
    } else if (c === 13 || c === 10) {
      // Line breaks in the source are not text.
      at++;
      continue;
    } else {
      special.lastIndex = at;
      const end = special.test(src) ? special.lastIndex - 1 : src.length;
      text = src.slice(at, end);
      at = end;
    }
    if (word !== undefined) {
      if (skip > 0 && g.mode === 0) {
        skip--;
        continue;
      }
      // Most words only format (\sa200, \fs22, \lang9): one lookup, and on.
      if (!meaningful.has(word)) {
        if (pendingDest) {
          pendingDest = false;
          g.mode = 1;
        }
        continue;
      }
      const n = param === undefined ? undefined : Number(param);
      if (word === "bin") {
        // Binary data of n bytes follows the control word (and its one space).
        flushBytes();
        at += Math.max(0, n ?? 0);
        continue;
      }
      if (pendingDest) {
        pendingDest = false;
        if (!textDestinations.has(word)) g.mode = 1;
      }
      if (textDestinations.has(word) && word !== "fldrslt") g.apart = true;
      if (g.mode === 2) {
        if (word === "f") tableFont = n;
        else if (word === "fcharset" && tableFont !== undefined && n !== undefined && charsets[n]) fontPage.set(tableFont, charsets[n]);
        else if (word === "cpg" && tableFont !== undefined && n !== undefined) fontPage.set(tableFont, n);
        continue;
      }
      if (word === "fonttbl") {
        g.mode = 2;
        continue;
      }
      if (word === "info") {
        g.info = true;
        continue;
      }
      if (g.info && infoText.has(word)) {
        // \info's text fields: each on a line of its own.
        g.info = false;
        emit("\n");
        continue;
      }
      if (skipped.has(word)) {
        g.mode = 1;
        continue;
      }
      if (g.mode !== 0) continue;
      switch (word) {
        case "u": {
          flushBytes();
          const unit = n === undefined ? 63 : n < 0 ? n + 65536 : n;
          emit(String.fromCharCode(unit));
          skip = g.uc;
          continue;
        }
        case "uc":
          g.uc = n ?? 1;
          continue;
        case "ansicpg":
          ansi = n ?? 1252;
          continue;
        case "f":
          flushBytes();
          font = n;
          continue;
        case "par":
        case "line":
        case "sect":
        case "page":
          emit("\n");
          continue;
        case "tab":
          emit("\t");
          continue;
        case "pard":
          flushBytes();
          if (inTable) inTable = false;
          continue;
        case "intbl":
          flushBytes();
          inTable = true;
          continue;
        case "cell":
        case "nestcell":
          flushBytes();
          row.push(cell.join("").replace(/\n+$/, ""));
          cell = [];
          continue;
        case "row":
        case "nestrow":
          flushBytes();
          if (cell.join("").trim()) row.push(cell.join(""));
          cell = [];
          if (row.length) rows.push(row);
          row = [];
          // The row is done; paragraphs after it are in the table only if they say \intbl again.
          inTable = false;
          continue;
        default:
          if (word in symbols) emit(symbols[word]);
          continue;
      }
    }
    if (hex !== undefined) {
      if (skip > 0) {
        skip--;
        continue;
      }
      if (g.mode === 0 && !g.info) {
        if (rows.length && !inTable && !bytes.length) flushTable();
        bytes.push(parseInt(hex, 16));
      }
      continue;
    }
    if (symbol !== undefined) {
      if (symbol === "*") {
        pendingDest = true;
        continue;
      }
      if (skip > 0 && g.mode === 0) {
        skip--;
        continue;
      }
      if (g.mode !== 0 || g.info) continue;
      if (symbol === "~") emit("\u00a0");
      else if (symbol === "_") emit("\u2011");
      else if (symbol === "-") continue;
      else if (symbol === "\n" || symbol === "\r") emit("\n");
      else emit(symbol);
      continue;
    }
    if (brace !== undefined) {
      flushBytes();
      pendingDest = false;
      if (brace === "{") {
        stack.push(g);
        g = { ...g, apart: false };
      } else {
        const closed = g;
        g = stack.pop() ?? g;
        if (closed.apart && closed.mode === 0) sink().push("\n");
      }
      // Fallback characters are counted within their group only.
      if (brace === "}") skip = 0;
      continue;
    }
    if (text !== undefined) {
      pendingDest = false;
      let t = text;
      if (skip > 0) {
        const cut = Math.min(skip, t.length);
        skip -= cut;
        t = t.slice(cut);
      }
      if (!t || g.mode !== 0 || g.info) continue;
      // Bytes past ASCII written as they are (not as \'hh) are in the same code page.
      if (/[\x80-\xff]/.test(t)) {
        if (rows.length && !inTable && !bytes.length) flushTable();
        for (const c of t) bytes.push(c.charCodeAt(0) & 0xff);
        continue;
      }
      emit(t);
    }
    // Line breaks in the source are not text.
  }
  flushBytes();
  flushTable();
  return out.join("").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

/** An RTF file: "{\rtf" at its start (after white space a mail client may add). */
export const isRtf = (buf: Buffer): boolean => /^\s*\{\\rtf/.test(buf.subarray(0, 64).toString("latin1"));
