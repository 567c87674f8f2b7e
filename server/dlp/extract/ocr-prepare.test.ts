// Small print and low contrast in pictures (issue 40): grey text 12 to 16 pixels high in a
// 30-pixel JPEG strip, which tesseract.js misreads or drops at its own size (measured when this
// was written: each of these three came back without the key), is read after ocr-prepare.ts scales
// it up, stretches its contrast and thresholds it. And the PNG reader and writer that do it.
import { afterAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../test/support/chromium.ts";
import { scanMessage } from "../scanner.ts";
import { stopOcr } from "./ocr.ts";
import { decodeJpeg, decodePng, encodePng, prepareForOcr } from "./ocr-prepare.ts";

afterAll(() => stopOcr());

async function strips(cases: [size: number, color: string, text: string][]): Promise<Buffer[]> {
  const browser = await launchChromium();
  try {
    const out: Buffer[] = [];
    for (const [size, color, text] of cases) {
      const page = await browser.newPage({ viewport: { width: 300, height: 30 } });
      await page.setContent(`<body style="margin:4px;font:${size}px 'DejaVu Sans',sans-serif;color:${color};background:#fff">${text}</body>`);
      out.push(await page.screenshot({ type: "jpeg", quality: 60 }));
      await page.close();
    }
    return out;
  } finally {
    await browser.close();
  }
}

describe("OCR of small, low-contrast print", () => {
  const cases: [number, string, string][] = [
    [12, "#bbb", "AWS key AKIAQ7RT2MXWPLK5ZB3N"],
    [13, "#999", "AWS key AKIAQ7RT2MXWPLK5ZB3N"],
    [16, "#bbb", "AWS key AKIAQ7RT2MXWPLK5ZB3N"],
  ];
  it("finds the key in each strip", { timeout: 120_000 }, async () => {
    const jpegs = await strips(cases);
    for (const [i, jpeg] of jpegs.entries()) {
      const { findings } = await scanMessage({ subject: "log", attachments: [{ filename: `strip-${i}.jpg`, content: jpeg }] }, { ocr: true });
      // The key as printed (the first reading may add a misread copy of it, a second finding).
      expect([cases[i], findings.map((f) => `${f.type} ${f.where} ${f.masked}`)]).toEqual([cases[i], expect.arrayContaining([`secret ocr:strip-${i}.jpg aws-access-key AKIAQ7****ZB3N`])]);
    }
  });

  it("prepares only small or low-contrast pictures, scaled within the pixel limit", async () => {
    const [jpeg] = await strips([[13, "#999", "x"]]);
    const grey = decodeJpeg(jpeg)!;
    expect([grey.width, grey.height]).toEqual([300, 30]);
    const prepared = decodePng(prepareForOcr(jpeg, "jpeg", 40_000_000)!)!;
    expect([prepared.width, prepared.height]).toEqual([1200, 120]);
    expect(new Set(prepared.data)).toEqual(new Set([0, 255]));
    // A pixel limit smaller than 4x: the largest factor within it.
    expect(decodePng(prepareForOcr(jpeg, "jpeg", 300 * 30 * 9)!)!.width).toBe(900);
    // Large and black on white: nothing to prepare.
    const page = { width: 400, height: 400, data: new Uint8Array(400 * 400).fill(255).fill(0, 0, 40_000) };
    expect(prepareForOcr(encodePng(page), "png", 40_000_000)).toBeUndefined();
  });

  it("reads back the PNG it writes, and refuses what it cannot read", () => {
    const img = { width: 3, height: 2, data: Uint8Array.from([0, 128, 255, 10, 20, 30]) };
    expect(decodePng(encodePng(img))).toEqual(img);
    expect(prepareForOcr(Buffer.from("not a picture"), "jpeg", 1e6)).toBeUndefined();
  });
});
