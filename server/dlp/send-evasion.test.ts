// Block mode through POST /v1/mail/send on a real server (issue 31): every message of the second
// corpus that holds sensitive data, and every evasion of the card probe, is refused with 422
// and nothing is queued; its hard negatives are sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { hostMailZone } from "../test/mail-zone.ts";
import type { OutgoingContent } from "./dlp-port.ts";
import { evasions } from "./test/evasions.ts";
import { layoutCorpus } from "./test/corpus-layout.ts";
import { unseenCorpus } from "./test/corpus-unseen.ts";

let p: TestPlatform;
let t: Tenant;
const clock = manualClock();

beforeAll(async () => {
  p = await startTestPlatform({}, { clock, runWorker: false });
  t = await p.newTenant("dlpevade");
  await hostMailZone(p.services, "dest.test");
  await p.services.projects.setDlpPolicy(t.projectId, "block", false);
});
afterAll(() => p.stop());

const count = (table: string) => (p.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

function send(content: OutgoingContent, tenant = t) {
  return tenant.api("POST", "/v1/mail/send", {
    from: `news@${tenant.domain}`,
    to: "bob@dest.test",
    subject: content.subject ?? "(no subject)",
    ...(content.text ? { text: content.text } : {}),
    ...(content.html ? { html: content.html } : {}),
    ...(content.headers ? { headers: content.headers } : {}),
    ...(content.attachments.length ? { attachments: content.attachments.map((a) => ({ filename: a.filename, content: a.content.toString("base64"), ...(a.contentType ? { contentType: a.contentType } : {}) })) } : {}),
  });
}

describe("DLP block mode on the classes of issue 31", () => {
  it("refuses every evasion of the card probe", { timeout: 120_000 }, async () => {
    const passed: string[] = [];
    for (const [name, build] of evasions) {
      const before = count("sent_messages");
      const res = await send(await build());
      if (res.status !== 422 || res.body.code !== "dlp_blocked" || count("sent_messages") !== before) passed.push(`${name}: ${res.status}`);
    }
    expect(passed).toEqual([]);
  });

  it("refuses every message of the second corpus that holds sensitive data and sends its hard negatives", { timeout: 120_000 }, async () => {
    const wrong: string[] = [];
    for (const sample of await unseenCorpus()) {
      const res = await send(sample.content);
      const want = sample.expected.length ? 422 : 200;
      if (res.status !== want) wrong.push(`${sample.name}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("refuses every message of the issue 40 corpus that holds sensitive data (OCR on) and sends its hard negatives", { timeout: 300_000 }, async () => {
    // A tenant of its own: the corpus is more than the 120 requests a minute a tenant may send.
    const t40 = await p.newTenant("dlp40", { rateLimit: 1_000_000_000 });
    await p.services.projects.setDlpPolicy(t40.projectId, "block", true);
    {
      const wrong: string[] = [];
      for (const sample of await layoutCorpus()) {
        const before = count("sent_messages");
        const res = await send(sample.content, t40);
        const want = sample.expected.length ? 422 : 200;
        if (res.status !== want || (want === 422 && count("sent_messages") !== before)) wrong.push(`${sample.name}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
    }
  });
});
