// DLP benchmarks for `npm run bench`: scan throughput (MB/s) of the scanner on plain text and on
// a docx and a PDF of the same text, beside a single-pass regular expression over the same text
// in the same run (the floor any scanner pays to read the text once); and the p99 latency that
// DLP adds to POST /v1/mail/send for a 100 KB message (warn vs off, alternating rounds).
import { performance } from "node:perf_hooks";
import { stopOcr } from "./extract/ocr.ts";
import { scanMessage } from "./scanner.ts";
import * as doc from "./test/documents.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/** About `bytes` of business prose with a finding every few hundred lines. */
export function benchText(bytes: number): string[] {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 200 === 0 ? `Row ${i}: card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32` : `Row ${i}: order ${100000 + i} shipped to customer ${i % 97} on 2026-11-${String((i % 28) + 1).padStart(2, "0")}, total ${(i * 3.17).toFixed(2)} AZN, ref 550e8400-e29b-41d4-a716-${String(i).padStart(12, "0")}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines;
}

const baseline = /\b(?:\d[ -]?){13,19}\b|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b|AKIA[A-Z0-9]{16}|-----BEGIN [A-Z ]*PRIVATE KEY-----|confidential|password\s*[:=]/gi;

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function benchmarkDlpScan(rounds = 5): Promise<{ mb: number; regex: number; text: number; docx: number; pdf: number }> {
  const lines = benchText(1024 * 1024);
  const text = lines.join("\n");
  const mb = Buffer.byteLength(text) / 1024 / 1024;
  const docx = await doc.docx(lines);
  // The PDF reader runs in a process of its own, started on first use: start it before timing.
  await scanMessage({ attachments: [{ filename: "warm.pdf", content: await doc.pdf(["warm up"]) }] });
  // 45 lines to a page: the same text as a multi-page PDF.
  const pdfDoc = await pagedPdf(lines);
  const ms = { regex: [] as number[], text: [] as number[], docx: [] as number[], pdf: [] as number[] };
  const limits = { maxPdfPages: 10_000 };
  for (let r = 0; r < rounds; r++) {
    ms.regex.push(await time(() => text.match(baseline)?.length));
    ms.text.push(await time(() => scanMessage({ text, attachments: [] })));
    ms.docx.push(await time(() => scanMessage({ attachments: [{ filename: "a.docx", content: docx }] }, { limits })));
    ms.pdf.push(await time(() => scanMessage({ attachments: [{ filename: "a.pdf", content: pdfDoc }] }, { limits })));
  }
  const rate = (xs: number[]) => mb / (median(xs) / 1000);
  return { mb, regex: rate(ms.regex), text: rate(ms.text), docx: rate(ms.docx), pdf: rate(ms.pdf) };
}

async function pagedPdf(lines: string[]): Promise<Buffer> {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const d = await PDFDocument.create();
  const font = await d.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < lines.length; i += 45) {
    const page = d.addPage([842, 842]);
    lines.slice(i, i + 45).forEach((l, j) => page.drawText(l, { x: 20, y: 820 - j * 18, size: 8, font }));
  }
  return Buffer.from(await d.save());
}

/** p99 of POST /v1/mail/send (100 KB text) with DLP warn vs off, in alternating rounds. */
export async function benchmarkDlpSend(rounds = 4, perRound = 50): Promise<{ off: number; warn: number }> {
  const { startTestPlatform } = await import("../test/harness.ts");
  const { hostMailZone } = await import("../test/mail-zone.ts");
  const p = await startTestPlatform({ dns: { enabled: true, host: "127.0.0.1", port: 0 } }, { runWorker: false });
  try {
    const t = await p.newTenant("dlpbench", { rateLimit: 1_000_000_000 });
    await hostMailZone(p.services, "dest.test");
    const body = { from: `news@${t.domain}`, to: "bob@dest.test", subject: "Report", text: benchText(100 * 1024).join("\n") };
    const lat = { off: [] as number[], warn: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      for (const mode of ["off", "warn"] as const) {
        await p.services.projects.setDlpPolicy(t.projectId, mode, false);
        for (let i = 0; i < perRound; i++) {
          const ms = await time(async () => {
            const res = await t.api("POST", "/v1/mail/send", body);
            if (res.status !== 200) throw new Error(`send answered ${res.status}`);
          });
          lat[mode].push(ms);
        }
      }
    }
    return { off: p99(lat.off), warn: p99(lat.warn) };
  } finally {
    await p.stop();
    await stopOcr();
  }
}
