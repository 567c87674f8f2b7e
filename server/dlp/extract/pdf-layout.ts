// A PDF page as it is laid out, from the positions of its text (officeparser's bounds, from pdf.js),
// not the order of the content stream: a producer may draw a form's labels first and its values
// after, or a three-column page line by line across the columns. So:
//  - pieces of text on the same baseline are one line, read left to right; pieces far apart on
//    a line (more than a text height) are cells;
//  - consecutive lines of two or more cells are a block whose columns are where their cells
//    stand (x ranges that overlap are one column);
//  - a block of short cells is a grid (a form or a table): read like every other table (table.ts),
//    each cell with its row label and column header, so a label in the first column labels the
//    value in its row, and twelve card numbers in twelve rows are twelve lines;
//  - a block of long cells is a page set in columns: read column after column, top to bottom, so
//    a line never runs into the next column's line;
//  - a line of its own stays a line; cells on one line apart from any block are joined by " | ",
//    which no detector reads as part of a value.
import { tableText } from "./table.ts";

export interface LayoutNode {
  type?: string;
  text?: string;
  children?: LayoutNode[];
  bounds?: { x: number; y: number; width: number; height: number };
}

interface Piece {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Median length of a cell past which a block is running text in columns rather than a grid. */
const PROSE_CELL = 30;

function pieces(node: LayoutNode, out: Piece[]): Piece[] {
  const kids = node.children ?? [];
  if (node.bounds && node.text && (kids.length === 0 || !kids.some((k) => k.bounds))) {
    const b = node.bounds;
    if (node.text.trim()) out.push({ text: node.text.replace(/\s+/g, " ").trim(), x: b.x, y: b.y, w: b.width, h: Math.max(1, b.height) });
    return out;
  }
  for (const k of kids) pieces(k, out);
  return out;
}

/** Pieces on the same baseline (their vertical middles within half a text height), left to right. */
function linesOf(all: Piece[]): Piece[][] {
  const sorted = [...all].sort((a, b) => a.y + a.h / 2 - (b.y + b.h / 2) || a.x - b.x);
  const lines: Piece[][] = [];
  for (const p of sorted) {
    const line = lines.at(-1);
    const mid = p.y + p.h / 2;
    if (line && Math.abs(mid - (line[0].y + line[0].h / 2)) < 0.5 * Math.min(p.h, line[0].h)) line.push(p);
    else lines.push([p]);
  }
  for (const l of lines) l.sort((a, b) => a.x - b.x);
  return lines;
}

/** A line's cells: pieces closer than a text height are one cell (words, runs of one phrase). */
function cellsOf(line: Piece[]): Piece[] {
  const cells: Piece[] = [];
  for (const p of line) {
    const last = cells.at(-1);
    const gap = last ? p.x - (last.x + last.w) : Infinity;
    if (last && gap < 1.2 * Math.max(p.h, last.h)) {
      last.text += gap > 0.15 * p.h ? ` ${p.text}` : p.text;
      last.w = p.x + p.w - last.x;
      last.h = Math.max(last.h, p.h);
    } else cells.push({ ...p });
  }
  return cells;
}

/** Columns of a block: x ranges of its cells, overlapping ones merged; each cell's column index. */
function columnsOf(rows: Piece[][]): number[][] {
  const ranges = rows.flat().map((c) => [c.x, c.x + c.w]).sort((a, b) => a[0] - b[0]);
  const merged: number[][] = [];
  for (const r of ranges) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  return rows.map((row) => row.map((c) => merged.findIndex((m) => c.x >= m[0] && c.x <= m[1])));
}

function blockText(rows: Piece[][]): string {
  if (rows.length === 1) return rows[0].map((c) => c.text).join(" | ");
  const cols = columnsOf(rows);
  const width = Math.max(...cols.flat()) + 1;
  const lengths = rows.flat().map((c) => c.text.length).sort((a, b) => a - b);
  if (lengths[Math.floor(lengths.length / 2)] >= PROSE_CELL) {
    // Running text in columns: each column top to bottom.
    const out: string[] = [];
    for (let c = 0; c < width; c++) out.push(rows.flatMap((row, r) => row.filter((_, i) => cols[r][i] === c).map((cell) => cell.text)).join("\n"));
    return out.filter(Boolean).join("\n\n");
  }
  const grid = rows.map((row, r) => {
    const cells: string[] = Array.from({ length: width }, () => "");
    row.forEach((cell, i) => (cells[cols[r][i]] = cells[cols[r][i]] ? `${cells[cols[r][i]]} ${cell.text}` : cell.text));
    return cells;
  });
  return tableText(grid);
}

/** A page's text as laid out; undefined when its text carries no positions (then the flowing text stands). */
export function pageText(page: LayoutNode): string | undefined {
  const all = pieces(page, []);
  if (all.length === 0) return undefined;
  const out: string[] = [];
  let block: Piece[][] = [];
  let lastBottom = -Infinity;
  const flush = () => {
    if (block.length) out.push(blockText(block));
    block = [];
  };
  for (const line of linesOf(all)) {
    const cells = cellsOf(line);
    const top = Math.min(...line.map((p) => p.y));
    const h = Math.max(...line.map((p) => p.h));
    // A blank line's worth of space ends a block, as does a line of one cell.
    if (cells.length < 2 || top - lastBottom > 1.5 * h) flush();
    if (cells.length < 2) out.push(cells[0].text);
    else block.push(cells);
    lastBottom = Math.max(...line.map((p) => p.y + p.h));
  }
  flush();
  return `${out.join("\n")}\n`;
}
