// Tables (CSV, spreadsheet sheets) as text a detector can read. In a table the word that says what
// a value is stands in its column's header or at the start of its row, not next to the value
// (`SWIFT,IBAN\nDEUTDEFF,DE89...`). So every cell of a data row becomes a line of its own,
// "<row label> <column header>: <value>", rows apart by a blank line, the header row kept as it is
// (it is text of the file too). Digits are left out of the labels put before a value: a label
// like "Q3 2026" or "Account 2" is not a value between the label and its value (DLP8).

/** The header: the first row with two or more cells (one in a one-column table), all names (a letter, or signs only: №, #). Rows above it (titles) stay as text. */
function headerIndex(rows: string[][]): number {
  const width = Math.max(...rows.map((r) => r.filter(Boolean).length));
  for (let i = 0; i < Math.min(rows.length, 10); i++) {
    const cells = rows[i].filter(Boolean);
    if (cells.length === 0) continue;
    if (cells.length < Math.min(2, width)) continue;
    // A column of row numbers is headed "№", "#" or "No.": a header cell of signs only is a name too.
    if (cells.some((c) => /\p{L}/u.test(c)) && cells.every((c) => (/\p{L}/u.test(c) && !looksLikeValue(c)) || /^[#№%*.\s]+$/u.test(c))) return i;
    return -1;
  }
  return -1;
}

/** A cell that is itself data rather than a name: mostly digits, or one token of capitals with a digit ("C01234567", not "PASSPORT" nor "Tax ID 2026"). */
function looksLikeValue(cell: string): boolean {
  const compact = cell.replace(/\s/g, "");
  const digits = compact.replace(/\D/g, "").length;
  return digits * 2 > compact.length || /^(?=\D*\d)[A-Z0-9]{6,}$/.test(compact);
}

const labelOf = (cell: string) => cell.replace(/\p{Nd}+/gu, "").replace(/\s+/g, " ").trim();

/** A numeric cell written in scientific notation (1.401555071E+9) as the digits it stands for. */
export function plainNumber(cell: string): string {
  const m = /^(\d)\.(\d+)E\+?(\d+)$/i.exec(cell);
  if (!m) return cell;
  const exp = Number(m[3]);
  if (exp < m[2].length || exp > 30) return cell;
  return m[1] + m[2] + "0".repeat(exp - m[2].length);
}

export function tableText(input: string[][]): string {
  const rows = input.map((r) => r.map((c) => (c && /e/i.test(c) ? plainNumber(c.trim()) : (c ?? "").trim())));
  const nonEmpty = rows.filter((r) => r.some(Boolean));
  if (nonEmpty.length === 0) return "";
  const h = headerIndex(nonEmpty);
  const header = h >= 0 ? nonEmpty[h].map(labelOf) : [];
  const out: string[] = h >= 0 ? nonEmpty.slice(0, h + 1).map((r) => r.filter(Boolean).join(" | ")) : [];
  for (const row of nonEmpty.slice(h + 1)) {
    // The row's label: its first cell, when that is a name rather than a value (a form laid out as a table).
    const first = row.findIndex(Boolean);
    const rowLabel = /\p{L}/u.test(row[first]) && !looksLikeValue(row[first]) ? labelOf(row[first]) : "";
    row.forEach((cell, col) => {
      if (!cell) return;
      const label = [col > first ? rowLabel : "", header[col] ?? ""].filter(Boolean).join(" ");
      out.push(label ? `${label}: ${cell}` : cell);
    });
    out.push("");
  }
  return out.join("\n");
}

/** RFC 4180 rows: quoted cells may hold the delimiter, quotes ("") and line breaks. The delimiter is the one of , ; tab | most used on the first line. */
export function csvRows(text: string): string[][] {
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? undefined : text.indexOf("\n"));
  const delimiter = [",", ";", "\t", "|"].map((d) => [d, firstLine.split(d).length] as const).sort((a, b) => b[1] - a[1])[0][0];
  const d = delimiter === "|" ? "\\|" : delimiter === "\t" ? "\\t" : delimiter;
  // One cell and what ends it, from where the last one ended: a quoted cell (spaces around it
  // allowed) or a run without quote, delimiter or line break (a stray quote inside is kept).
  const cell = new RegExp(`[ \\t]*"((?:[^"]|"")*)"[ \\t]*(${d}|\\r?\\n|\\r|$)|([^${d}\\r\\n]*)(${d}|\\r?\\n|\\r|$)`, "y");
  const rows: string[][] = [];
  let row: string[] = [];
  for (let at = 0; at < text.length; ) {
    cell.lastIndex = at;
    const m = cell.exec(text)!;
    row.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[3]);
    const end = m[2] ?? m[4];
    at = cell.lastIndex;
    if (end !== delimiter) {
      rows.push(row);
      row = [];
    }
    if (end === "") break;
  }
  if (row.length) rows.push(row);
  return rows;
}

export const csvText = (text: string): string => tableText(csvRows(text));
