// The one way tests start a browser: Debian's Chromium (installed by scripts/install-system-deps.sh,
// which `npm test` runs first) driven by playwright-core. A missing browser fails the test with the
// command that installs it; nothing skips. Flags keep a headless run quiet and offline: no sandbox
// (tests may run as root), no background networking, no component updates.
import { chromium, type Browser } from "playwright-core";
import { requireTool } from "./system-tools.ts";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: requireTool("chromium", CHROMIUM_PATH),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
