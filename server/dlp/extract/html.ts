// HTML as what it carries, not only what it renders: text nodes (entities decoded, text hidden
// with CSS or `hidden` included: a parser does not apply styles), comments, and the values of
// attributes (title, alt, href, value of hidden inputs, data-*, meta content...), a tag's on one
// line, each after its name. Block elements and <br> are line breaks (so cells do not run
// together); inline elements are joined as rendered. A table of two or more columns is read as a
// table (table.ts: each cell with its column header and row label); a one-column table, as most
// layout tables are, as its lines. Left out: `style` and `class` (presentation) and data: URIs
// (an inline picture's bytes).
import { Parser } from "htmlparser2";
import { tableText } from "./table.ts";

const blocks = new Set(["p", "div", "br", "tr", "td", "th", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "blockquote", "pre", "hr", "dt", "dd", "title", "option", "script", "style", "noscript", "template", "head", "body"]);
const presentation = new Set(["style", "class"]);

interface Table {
  rows: string[][];
  row?: string[];
  cell?: string[];
}

const squeeze = (s: string) => s.replace(/[ \t\u00a0]+/g, " ").replace(/ ?\n[ \n]*/g, "\n").trim();

function tableOut(t: Table): string {
  const rows = t.rows.filter((r) => r.some(Boolean));
  const width = Math.max(0, ...rows.map((r) => r.length));
  return width >= 2 ? tableText(rows) : rows.map((r) => r.join("\n")).join("\n");
}

export function htmlText(html: string): string {
  const parts: string[] = [];
  const tables: Table[] = [];
  // Where text goes: the open cell of the innermost table, else the document.
  const sink = () => tables.at(-1)?.cell ?? parts;
  const endCell = (t: Table) => {
    if (!t.cell) return;
    (t.row ??= []).push(squeeze(t.cell.join("")));
    t.cell = undefined;
  };
  const endRow = (t: Table) => {
    endCell(t);
    if (t.row) t.rows.push(t.row);
    t.row = undefined;
  };
  const endTable = () => {
    const t = tables.pop()!;
    endRow(t);
    sink().push(`\n${tableOut(t)}\n`);
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const t = tables.at(-1);
        if (name === "table") tables.push({ rows: [] });
        else if (t && name === "tr") endRow(t);
        else if (t && (name === "td" || name === "th")) {
          endCell(t);
          t.cell = [];
        }
        if (blocks.has(name)) sink().push("\n");
        // One line per tag, each value after its name: a hidden input's name labels its value.
        const carried = Object.entries(attrs).filter(([a, v]) => v && !presentation.has(a) && !/^\s*data:/i.test(v));
        if (carried.length) sink().push(`\n${carried.map(([a, v]) => `${a}: ${v}`).join("; ")}\n`);
      },
      ontext(text) {
        sink().push(text);
      },
      oncomment(text) {
        sink().push(`\n${text}\n`);
      },
      onclosetag(name) {
        const t = tables.at(-1);
        if (name === "table" && t) return endTable();
        if (t && (name === "td" || name === "th")) return endCell(t);
        if (t && name === "tr") return endRow(t);
        if (blocks.has(name)) sink().push("\n");
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  while (tables.length) endTable();
  return squeeze(parts.join(""));
}
