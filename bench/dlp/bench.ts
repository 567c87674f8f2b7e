// DLP benchmarks for `npm run bench` (or `npm run bench:dlp` alone): scan throughput (MB/s) of
// the scanner on plain text and on a docx, a PDF and an RTF of the same text, beside a single-pass
// regular expression over the same text in the same run (the floor any scanner pays to read the
// text once); and the p99 latency that DLP adds to POST /v1/mail/send for a 100 KB message
// through the real HTTP server (warn vs off, alternating rounds).
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { stopOcr } from "../../server/dlp/extract/ocr.ts";
import { scanMessage } from "../../server/dlp/scanner.ts";
import * as doc from "../../server/dlp/test/documents.ts";

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

export async function benchmarkDlpScan(rounds = 5): Promise<{ mb: number; regex: number; text: number; docx: number; pdf: number; rtf: number }> {
  const lines = benchText(1024 * 1024);
  const text = lines.join("\n");
  const mb = Buffer.byteLength(text) / 1024 / 1024;
  const docx = await doc.docx(lines);
  const rtf = doc.rtf(lines);
  // The PDF reader runs in a process of its own, started on first use: start it before timing.
  await scanMessage({ attachments: [{ filename: "warm.pdf", content: await doc.pdf(["warm up"]) }] });
  // 45 lines to a page: the same text as a multi-page PDF.
  const pdfDoc = await pagedPdf(lines);
  const ms = { regex: [] as number[], text: [] as number[], docx: [] as number[], pdf: [] as number[], rtf: [] as number[] };
  const limits = { maxPdfPages: 10_000 };
  for (let r = 0; r < rounds; r++) {
    ms.regex.push(await time(() => text.match(baseline)?.length));
    ms.text.push(await time(() => scanMessage({ text, attachments: [] })));
    ms.docx.push(await time(() => scanMessage({ attachments: [{ filename: "a.docx", content: docx }] }, { limits })));
    ms.pdf.push(await time(() => scanMessage({ attachments: [{ filename: "a.pdf", content: pdfDoc }] }, { limits })));
    ms.rtf.push(await time(() => scanMessage({ attachments: [{ filename: "a.rtf", content: rtf }] }, { limits })));
  }
  const rate = (xs: number[]) => mb / (median(xs) / 1000);
  return { mb, regex: rate(ms.regex), text: rate(ms.text), docx: rate(ms.docx), pdf: rate(ms.pdf), rtf: rate(ms.rtf) };
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

export interface SendLatency {
  off: { p50: number; p99: number };
  warn: { p50: number; p99: number };
  samples: number;
}

/**
 * POST /v1/mail/send of a 100 KB text (one card and one IBAN every 200 lines, so warn mode also
 * records findings) with DLP warn vs off, one request at a time, in alternating rounds. Both modes
 * are warmed up first: the first scan starts the scanning thread, which no later send pays.
 */
export async function benchmarkDlpSend(rounds = 5, perRound = 40): Promise<SendLatency> {
  const { startTestPlatform } = await import("../../server/test/harness.ts");
  const { hostMailZone } = await import("../../server/test/mail-zone.ts");
  const p = await startTestPlatform({ dns: { enabled: true, host: "127.0.0.1", port: 0 } }, { runWorker: false });
  try {
    const t = await p.newTenant("dlpbench", { rateLimit: 1_000_000_000 });
    await hostMailZone(p.services, "dest.test");
    const body = { from: `news@${t.domain}`, to: "bob@dest.test", subject: "Report", text: benchText(100 * 1024).join("\n") };
    const lat = { off: [] as number[], warn: [] as number[] };
    const send = async () => {
      const res = await t.api("POST", "/v1/mail/send", body);
      if (res.status !== 200) throw new Error(`send answered ${res.status}`);
    };
    for (const mode of ["off", "warn"] as const) {
      await p.services.projects.setDlpPolicy(t.projectId, mode, false);
      for (let i = 0; i < 10; i++) await send();
    }
    for (let r = 0; r < rounds; r++) {
      for (const mode of ["off", "warn"] as const) {
        await p.services.projects.setDlpPolicy(t.projectId, mode, false);
        for (let i = 0; i < perRound; i++) lat[mode].push(await time(send));
      }
    }
    const stats = (xs: number[]) => ({ p50: median(xs), p99: p99(xs) });
    return { off: stats(lat.off), warn: stats(lat.warn), samples: rounds * perRound };
  } finally {
    await p.stop();
    await stopOcr();
  }
}

export async function runDlpBenchmarks(options: { scanRounds?: number; sendRounds?: number } = {}): Promise<void> {
  const scan = await benchmarkDlpScan(options.scanRounds);
  const ratio = (x: number) => (x / scan.regex).toFixed(3);
  console.log(`DLP scan throughput: ${scan.mb.toFixed(2)} MB of text (a card and an IBAN every 200 lines), median of rounds`);
  console.log(`  one-pass regular expression (baseline): ${scan.regex.toFixed(1)} MB/s`);
  console.log(`  scanner, plain text:                    ${scan.text.toFixed(1)} MB/s (ratio ${ratio(scan.text)})`);
  console.log(`  scanner, the same text as docx:         ${scan.docx.toFixed(2)} MB/s (ratio ${ratio(scan.docx)})`);
  console.log(`  scanner, the same text as PDF:          ${scan.pdf.toFixed(2)} MB/s (ratio ${ratio(scan.pdf)})`);
  console.log(`  scanner, the same text as RTF:          ${scan.rtf.toFixed(2)} MB/s (ratio ${ratio(scan.rtf)})`);
  const send = await benchmarkDlpSend(options.sendRounds);
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`DLP on the send path: POST /v1/mail/send, 100 KB text, one at a time, ${send.samples} per mode in alternating rounds, loopback`);
  console.log(`  DLP off:  p50 ${ms(send.off.p50)}, p99 ${ms(send.off.p99)}`);
  console.log(`  DLP warn: p50 ${ms(send.warn.p50)}, p99 ${ms(send.warn.p99)}`);
  console.log(`  added by DLP: p50 ${ms(send.warn.p50 - send.off.p50)}, p99 ${ms(send.warn.p99 - send.off.p99)}`);
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { "scan-rounds": { type: "string", default: "5" }, "send-rounds": { type: "string", default: "5" } } });
  await runDlpBenchmarks({ scanRounds: Number(values["scan-rounds"]), sendRounds: Number(values["send-rounds"]) });
}
