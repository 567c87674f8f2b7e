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
