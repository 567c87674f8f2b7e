// Precision and recall per type over the labelled corpus (test/corpus.ts), printed as the table
// in server/dlp/README.md, with one per class of place. Goal (issue 31): at least 0.97 for both on every type;
// issue 40: recall at least 0.97 at every class of place and precision 1.00 (no false positive).
import { afterAll, describe, expect, it } from "vitest";
import type { DlpType } from "./dlp-port.ts";
import { stopOcr } from "./extract/ocr.ts";
import { ALL_TYPES } from "./policy-types.ts";
import { scanMessage } from "./scanner.ts";
import { encryptedCorpus, negatives, positives, textCorpus, type Sample } from "./test/corpus.ts";
import { layoutCorpus } from "./test/corpus-layout.ts";
import { unseenCorpus } from "./test/corpus-unseen.ts";
import * as doc from "./test/documents.ts";
import { renderPngs } from "./test/images.ts";

// Pictures: three values of each type, attached as PNG or inside a docx, xlsx, pptx or PDF
// (rotating), and hard negatives both ways. The OCR model is English (the only one shipped as an
// npm package here), so values written in Cyrillic or with Azerbaijani letters (ə, ı, ş, ğ...) are
// left out of pictures: in an image they are not read (server/dlp/README.md says so).
const englishOcr = (lines: string[]) => !/[^\x00-\x7f№]/.test(lines.join(""));
const holders = ["docx", "xlsx", "pptx", "pdf"] as const;

async function holding(kind: (typeof holders)[number], name: string, png: Buffer): Promise<[string, Buffer, string]> {
  switch (kind) {
    case "docx":
      return [`${name}.docx`, await doc.docx(["Scan attached below."], undefined, [png]), "word/media/image1.png"];
    case "xlsx":
      return [`${name}.xlsx`, await doc.xlsx([["note"], ["see the picture"]], [png]), "xl/media/image1.png"];
    case "pptx":
      return [`${name}.pptx`, await doc.pptx(["Screenshot"], [png]), "ppt/media/image1.png"];
    case "pdf":
      return [`${name}.pdf`, await doc.pdf(["Scanned page"], { pictures: [png] }), "page-1/image-1.png"];
  }
}

async function imageCorpus(): Promise<Sample[]> {
  const picks = Object.entries(positives).flatMap(([type, values]) => values.filter(englishOcr).slice(0, 3).map((lines) => ({ type, lines })));
  const negs = negatives.filter(englishOcr).slice(0, 12).map((lines) => ({ type: "", lines }));
  const all = [...picks, ...negs];
  const pngs = await renderPngs(all.map((p) => p.lines));
  return Promise.all(all.map(async (p, i) => {
    const label = `${p.type || "negative"} in image ${i}`;
    if (i % 3 === 0) return { name: label, content: { subject: "Photo", attachments: [{ filename: `photo-${i}.png`, content: pngs[i] }] }, expected: p.type ? [`${p.type} ocr:photo-${i}.png`] : [] };
    const [filename, content, inner] = await holding(holders[i % holders.length], `scan-${i}`, pngs[i]);
    return { name: `${label} inside ${filename}`, content: { subject: "Scan", attachments: [{ filename, content }] }, expected: p.type ? [`${p.type} ocr:${filename}/${inner}`] : [] };
  }));
}

afterAll(() => stopOcr());

/** The class of place of a sample, for the per-place table: its own, or the place its name ends with. */
function placeOf(sample: Sample & { place?: string }): string {
  if (sample.place) return sample.place;
  if (/image/.test(sample.name)) return "picture (OCR)";
  return / in (\w+)$/.exec(sample.name)?.[1] ?? "encrypted or plain file";
}

describe("DLP quality on the labelled corpus", () => {
  it("has precision and recall of at least 0.97 for every type", { timeout: 600_000 }, async () => {
    const samples: Sample[] = [...(await textCorpus()), ...(await encryptedCorpus()), ...(await imageCorpus()), ...(await unseenCorpus()), ...(await layoutCorpus())];
    const stats = new Map<DlpType, { tp: number; fp: number; fn: number }>(ALL_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }]));
    const byPlace = new Map<string, { tp: number; fp: number; fn: number; negatives: number }>();
    const misses: string[] = [];
    for (const sample of samples) {
      const { findings } = await scanMessage(sample.content, { ocr: true });
      const found = new Set(findings.map((f) => `${f.type} ${f.where}`));
      const expected = new Set(sample.expected);
      const where = placeOf(sample);
      const p = byPlace.get(where) ?? { tp: 0, fp: 0, fn: 0, negatives: 0 };
      byPlace.set(where, p);
      if (expected.size === 0) p.negatives++;
      for (const e of expected) {
        const s = stats.get(e.split(" ")[0] as DlpType)!;
        if (found.has(e)) {
          s.tp++;
          p.tp++;
        } else {
          s.fn++;
          p.fn++;
          misses.push(`missed ${e} (${sample.name})`);
        }
      }
      for (const f of found) {
        if (expected.has(f)) continue;
        stats.get(f.split(" ")[0] as DlpType)!.fp++;
        p.fp++;
        misses.push(`false ${f} (${sample.name})`);
      }
    }
    const rows = [...stats].map(([type, s]) => {
      const precision = s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp);
      const recall = s.tp + s.fn === 0 ? 1 : s.tp / (s.tp + s.fn);
      return { type, ...s, precision: Number(precision.toFixed(3)), recall: Number(recall.toFixed(3)) };
    });
    const table = ["| type | TP | FP | FN | precision | recall |", "|---|---|---|---|---|---|", ...rows.map((r) => `| ${r.type} | ${r.tp} | ${r.fp} | ${r.fn} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} |`)];
    const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b).toFixed(3);
    const places = ["| place | messages without findings | TP | FP | FN | precision | recall |", "|---|---|---|---|---|---|---|", ...[...byPlace].map(([w, s]) => `| ${w} | ${s.negatives} | ${s.tp} | ${s.fp} | ${s.fn} | ${ratio(s.tp, s.tp + s.fp)} | ${ratio(s.tp, s.tp + s.fn)} |`)];
    console.log(`DLP corpus: ${samples.length} messages\n${table.join("\n")}\n\n${places.join("\n")}\n${misses.join("\n")}`);
    for (const r of rows) {
      expect(r.precision, `${r.type} precision`).toBeGreaterThanOrEqual(0.97);
      expect(r.recall, `${r.type} recall`).toBeGreaterThanOrEqual(0.97);
    }
    // Issue 40: recall of at least 0.97 at every class of place, and no false positive anywhere.
    for (const [w, s] of byPlace) expect([w, s.tp + s.fn === 0 || s.tp / (s.tp + s.fn) >= 0.97, s.fp]).toEqual([w, true, 0]);
  });
});
