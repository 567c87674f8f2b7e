// A stopped platform leaves no scanning thread behind: the DLP pool's threads (named "dlp-scan")
// and the OCR recognizers they started (tesseract.js workers, unnamed: "WorkerThread") are gone
// from the process's OS threads once stop() returns.
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { startTestPlatform } from "../test/harness.ts";
import { THREAD_NAME } from "./scan-pool.ts";
import { renderPngs } from "./test/images.ts";

/** Names of this process's OS threads (Linux: /proc/self/task/<tid>/comm). */
function threadNames(): string[] {
  return readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      return [readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim()];
    } catch {
      return []; // the thread ended between the listing and the read
    }
  });
}

describe("DLP threads at platform shutdown", () => {
  it("ends every scanning thread, OCR included, when the platform stops", { timeout: 120_000 }, async () => {
    const [png] = await renderPngs([["Card 4111 1111 1111 1111"]]);
    const workers = () => threadNames().filter((n) => n === THREAD_NAME || n === "WorkerThread");
    expect(workers()).toEqual([]);
    const p = await startTestPlatform();
    const t = await p.newTenant("dlpstop");
    await p.services.projects.setDlpPolicy(t.projectId, "warn", true);
    const verdict = await p.services.dlp.inspect(t.projectId, { subject: "Scan", attachments: [{ filename: "card.png", content: png }] });
    expect(verdict.findings.map((f) => `${f.type} ${f.where}`)).toEqual(["card ocr:card.png"]);
    expect(workers()).toEqual([THREAD_NAME, "WorkerThread"]);
    await p.stop();
    expect(workers()).toEqual([]);
  });
});
