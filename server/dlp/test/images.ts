// Renders text lines to PNG with the Chromium the test machine has (scripts/install-system-deps.sh),
// so OCR is measured on real rendered text, as a screenshot or a scanned form would hold it.
import { launchChromium } from "../../../test/support/chromium.ts";

export async function renderPngs(texts: string[][]): Promise<Buffer[]> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 200 } });
    const out: Buffer[] = [];
    for (const lines of texts) {
      const body = lines.map((l) => `<div>${l.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</div>`).join("");
      await page.setContent(`<body style="margin:24px;font:24px 'DejaVu Sans',sans-serif;background:#fff;color:#000">${body}</body>`);
      out.push(await page.screenshot({ type: "png", fullPage: true }));
    }
    return out;
  } finally {
    await browser.close();
  }
}

/** One-line strips of small print (`size` px, `color` on white) as JPEG, the way a cropped screenshot or a phone photo of a label is sent. */
export async function renderJpegStrips(strips: { text: string; size: number; color: string; width?: number }[]): Promise<Buffer[]> {
  const browser = await launchChromium();
  try {
    const out: Buffer[] = [];
    for (const s of strips) {
      const page = await browser.newPage({ viewport: { width: s.width ?? 320, height: 30 } });
      await page.setContent(`<body style="margin:4px;font:${s.size}px 'DejaVu Sans',sans-serif;color:${s.color};background:#fff">${s.text.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</body>`);
      out.push(await page.screenshot({ type: "jpeg", quality: 60 }));
      await page.close();
    }
    return out;
  } finally {
    await browser.close();
  }
}
