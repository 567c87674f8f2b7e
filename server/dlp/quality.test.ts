// Precision and recall per type over the labelled corpus (test/corpus.ts), printed as the table
// in server/dlp/README.md. Goal: at least 0.95 for both on every type.
import { afterAll, describe, expect, it } from "vitest";
import type { DlpType } from "./dlp-port.ts";
import { stopOcr } from "./extract/ocr.ts";
import { ALL_TYPES } from "./policy-types.ts";
import { scanMessage } from "./scanner.ts";
import { encryptedCorpus, negatives, positives, textCorpus, type Sample } from "./test/corpus.ts";
import { renderPngs } from "./test/images.ts";

async function imageCorpus(): Promise<Sample[]> {
  const picks = Object.entries(positives).flatMap(([type, values]) => values.slice(0, 2).map((lines) => ({ type, lines })));
  const negs = negatives.slice(0, 8).map((lines) => ({ type: "", lines }));
  const all = [...picks, ...negs];
  const pngs = await renderPngs(all.map((p) => p.lines));
  return all.map((p, i) => ({
    name: `${p.type || "negative"} in image ${i}`,
    content: { subject: "Photo", attachments: [{ filename: `photo-${i}.png`, content: pngs[i] }] },
    expected: p.type ? [`${p.type} ocr:photo-${i}.png`] : [],
  }));
}

afterAll(() => stopOcr());

describe("DLP quality on the labelled corpus", () => {
  it("has precision and recall of at least 0.95 for every type", { timeout: 600_000 }, async () => {
    const samples = [...(await textCorpus()), ...(await encryptedCorpus()), ...(await imageCorpus())];
    const stats = new Map<DlpType, { tp: number; fp: number; fn: number }>(ALL_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }]));
    const misses: string[] = [];
    for (const sample of samples) {
      const { findings } = await scanMessage(sample.content, { ocr: true });
      const found = new Set(findings.map((f) => `${f.type} ${f.where}`));
      const expected = new Set(sample.expected);
      for (const e of expected) {
        const s = stats.get(e.split(" ")[0] as DlpType)!;
        if (found.has(e)) s.tp++;
        else {
          s.fn++;
          misses.push(`missed ${e} (${sample.name})`);
        }
      }
      for (const f of found) {
        if (expected.has(f)) continue;
        stats.get(f.split(" ")[0] as DlpType)!.fp++;
        misses.push(`false ${f} (${sample.name})`);
      }
    }
    const rows = [...stats].map(([type, s]) => {
      const precision = s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp);
      const recall = s.tp + s.fn === 0 ? 1 : s.tp / (s.tp + s.fn);
      return { type, ...s, precision: Number(precision.toFixed(3)), recall: Number(recall.toFixed(3)) };
    });
    const table = ["| type | TP | FP | FN | precision | recall |", "|---|---|---|---|---|---|", ...rows.map((r) => `| ${r.type} | ${r.tp} | ${r.fp} | ${r.fn} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} |`)];
    console.log(`DLP corpus: ${samples.length} messages\n${table.join("\n")}\n${misses.join("\n")}`);
    for (const r of rows) {
      expect(r.precision, `${r.type} precision`).toBeGreaterThanOrEqual(0.95);
      expect(r.recall, `${r.type} recall`).toBeGreaterThanOrEqual(0.95);
    }
  });
});
