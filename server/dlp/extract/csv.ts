// CSV rows as "header: value" lines when the first row is a header (no digits), so context words
// in column names ("passport", "VÖEN", "SWIFT") stand next to every value of their column.
export function csvText(text: string): string {
  const lines = text.split(/\r?\n/);
  const delimiter = [",", ";", "\t", "|"].map((d) => [d, lines[0]?.split(d).length ?? 0] as const).sort((a, b) => b[1] - a[1])[0][0];
  const split = (line: string) => line.split(new RegExp(`${delimiter === "|" ? "\\|" : delimiter}(?=(?:[^"]*"[^"]*")*[^"]*$)`)).map((c) => c.trim().replace(/^"|"$/g, "").replace(/""/g, '"'));
  const header = split(lines[0] ?? "");
  if (header.length < 1 || !header.some((h) => /\p{L}/u.test(h)) || header.some((h) => /\d/.test(h))) return text;
  const out: string[] = [lines[0]];
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    const cells = split(line);
    out.push(cells.map((c, i) => `${header[i] ?? ""}: ${c}`).join("\n"), "");
  }
  return out.join("\n");
}
