// A batch send's messages are scanned side by side (as many at once as the scanning pool has
// threads, not one after another), under one time budget for the whole batch, and their findings
// carry the message numbers (decision S10).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import { DlpScannerInspector } from "./dlp-inspector.ts";
import { ScanPool } from "./scan-pool.ts";
import * as doc from "./test/documents.ts";

let p: TestPlatform;
let t: Tenant;
let inspector: DlpScannerInspector;

beforeAll(async () => {
  p = await startTestPlatform({ dlp: { threads: 2 } }, { clock: manualClock(), runWorker: false });
  t = await p.newTenant("dlpbatch");
  await hostMailZone(p.services, "dest.test");
  inspector = p.services.dlp as DlpScannerInspector;
});
afterAll(() => p.stop());

describe("DLP on a batch send", () => {
  it("hands every message to the scanning threads at once and numbers the findings by message", async () => {
    await p.services.projects.setDlpPolicy(t.projectId, "warn", false);
    expect([inspector.pool.capacity, inspector.pool.peakBusy]).toEqual([2, 0]);
    const pdf = (await doc.pdf(["Card 4111 1111 1111 1111 exp 12/27"])).toString("base64");
    const res = await t.api("POST", "/v1/mail/send-batch", {
      from: `news@${t.domain}`, subject: "Statement",
      messages: [
        { to: "a@dest.test", attachments: [{ filename: "a.pdf", content: pdf }] },
        { to: "b@dest.test", attachments: [{ filename: "b.txt", content: Buffer.from("Nothing to see").toString("base64") }] },
        { to: "c@dest.test", subject: "IBAN GB82 WEST 1234 5698 7654 32" },
        { to: "d@dest.test", attachments: [{ filename: "d.pdf", content: pdf }] },
      ],
    });
    expect(res.status).toBe(200);
    // Two threads, four messages: both threads were busy at once (one after another would be 1).
    expect(inspector.pool.peakBusy).toBe(2);
    expect(res.body.dlp.map((f: { message: number; type: string; where: string }) => `${f.message} ${f.type} ${f.where}`)).toEqual([
      "0 card attachment:a.pdf",
      "2 iban subject",
      "3 card attachment:d.pdf",
    ]);
    expect(res.body.warnings).toEqual([
      "message 0: DLP: 1 finding: card in attachment:a.pdf",
      "message 2: DLP: 1 finding: iban in subject",
      "message 3: DLP: 1 finding: card in attachment:d.pdf",
    ]);
  });

  it("reports what the batch's time budget did not reach in every message, never passes it", async () => {
    const pool = new ScanPool({ threads: 2 });
    const spent = new DlpScannerInspector({ repository: p.services.dlpLog, pool, backend: p.services.backend, clock: p.services.clock, limits: { batchBudgetMs: 0 } });
    try {
      const message = (i: number) => ({ subject: `Card 4111 1111 1111 1111 #${i}`, attachments: [{ filename: `m${i}.txt`, content: Buffer.from("IBAN GB82 WEST 1234 5698 7654 32") }] });
      const verdicts = await spent.inspectBatch(t.projectId, [message(0), message(1), message(2)]);
      expect(verdicts.map((v) => v.findings.map((f) => `${f.type} ${f.where} ${f.masked}`))).toEqual([0, 1, 2].map((i) => [
        "card subject 4111 **** **** 1111",
        `encrypted attachment:m${i}.txt not inspected: time budget of the batch ran out`,
      ]));
      // A single send keeps its own budget: the batch's does not apply.
      const single = await spent.inspect(t.projectId, message(3));
      expect(single.findings.map((f) => `${f.type} ${f.where}`)).toEqual(["card subject", "iban attachment:m3.txt"]);
    } finally {
      await spent.close();
    }
  });
});
