// /docs on a fresh clone (issue 17 item 12, issue 16 item 3): a server started with `build` makes
// the Redocly reference itself, serves it without a restart, and the page works in headless
// Chromium with every request off the loopback server refused. The screenshot goes to
// test-results/docs-offline.png.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "../../test/support/chromium.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../test/harness.ts";

const root = path.resolve(import.meta.dirname, "../..");
const screenshot = path.join(root, "test-results/docs-offline.png");
let p: TestPlatform;
let docsDir: string;
let browser: Browser;

async function docsText(): Promise<string> {
  return (await fetch(`${p.url}/docs`)).text();
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

beforeAll(async () => {
  docsDir = mkdtempSync(path.join(tmpdir(), "docs-"));
  expect(existsSync(path.join(docsDir, "index.html"))).toBe(false);
  // A fresh clone: no built reference yet.
  // The contract /openapi.json follows: a copy of generated/openapi's, which the last test rewrites.
  copyFileSync(path.join(root, "generated/openapi/openapi.json"), path.join(docsDir, "openapi.json"));
  p = await startTestPlatform({}, { docs: { build: true, file: path.join(docsDir, "index.html"), contractFile: path.join(docsDir, "openapi.json") } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await p?.stop();
  rmSync(docsDir, { recursive: true, force: true });
});

describe("the reference at /docs", () => {
  it("is built by the running server, with Redoc inlined", async () => {
    await until(async () => (await docsText()).includes("__redoc_definition"), "the reference replaced the index");
    const html = await docsText();
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toContain("cdn.redocly.com/redoc/");
  });

  it("renders and hydrates in Chromium with the network off", async () => {
    const context = await browser.newContext();
    const refused: string[] = [];
    // Only the server on loopback answers; everything else fails as it would offline.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(p.url)) return route.continue();
      refused.push(url);
      return route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${p.url}/docs`);
    await page.getByText("Developer Platform API").first().waitFor();
    // Hydrated: Redoc's script ran from the page itself (offline it used to stay a dead prerender).
    await page.waitForFunction(() => document.querySelector("[data-testid='search-trigger'] span")?.textContent !== "Loading...", undefined, { timeout: 30_000 });
    mkdirSync(path.dirname(screenshot), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: false });
    console.log(`docs screenshot: ${screenshot}; requests refused: ${refused.length ? refused.join(", ") : "none"}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("picks up a new build without a restart", async () => {
    const file = path.join(docsDir, "index.html");
    writeFileSync(file, "<!doctype html><title>rebuilt</title>rebuilt reference");
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    expect(await docsText()).toContain("rebuilt reference");
  });
});

describe("the contract at /openapi.json", () => {
  it("follows the contract file after a rebuild (npm run generate -- --watch), as /docs does", async () => {
    const before = (await (await fetch(`${p.url}/openapi.json`)).json()) as { info: { title: string } };
    const file = path.join(docsDir, "openapi.json");
    const rebuilt = JSON.parse(readFileSync(file, "utf8")) as { info: { title: string } };
    rebuilt.info.title = `${before.info.title} (rebuilt)`;
    writeFileSync(file, JSON.stringify(rebuilt));
    const later = new Date(Date.now() + 60_000);
    utimesSync(file, later, later);
    const after = (await (await fetch(`${p.url}/openapi.json`)).json()) as { info: { title: string } };
    expect(after.info.title).toBe(`${before.info.title} (rebuilt)`);
  });
});
