// The inspector through the port (services.dlp) on the real platform: policy from the console's
// repository, scanning in worker threads, the log and mail.dlp events written by record(), and
// both operations through real HTTP. The send path (h10) calls the same port.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform, type Tenant } from "../test/harness.ts";
import * as doc from "./test/documents.ts";

let platform: TestPlatform;
let tenant: Tenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await platform.newTenant("dlp");
});
afterAll(() => platform.stop());

describe("DLP inspector and its operations", () => {
  it("answers the policy: off by default, then what the console set", async () => {
    const off = await tenant.api("GET", "/v1/mail/policy");
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ mode: "off", ocr: { enabled: false, engine: "none" } });
    expect(off.body.types).toHaveLength(10);
    await platform.services.projects.setDlpPolicy(tenant.projectId, "block", true);
    await platform.services.projects.setDlpTypes(tenant.projectId, ["card", "iban", "encrypted"]);
    const set = await tenant.api("GET", "/v1/mail/policy");
    expect(set.body).toEqual({ mode: "block", types: ["card", "iban", "encrypted"], ocr: { enabled: true, engine: "builtin" }, attachmentTypes: ["txt", "csv", "json", "html", "docx", "xlsx", "pptx", "pdf", "zip", "png", "jpeg"] });
  });

  it("does not scan in mode off", async () => {
    const other = await platform.newTenant("dlp-off");
    const verdict = await platform.services.dlp.inspect(other.projectId, { subject: "card 4111 1111 1111 1111", attachments: [] });
    expect(verdict).toEqual({ mode: "off", findings: [], warnings: [] });
  });

  it("scans in a worker thread under the project's types, records each finding and emits mail.dlp", async () => {
    await platform.services.projects.setDlpPolicy(tenant.projectId, "warn", false);
    const content = {
      subject: "Invoice",
      text: "Pay 4111 1111 1111 1111 exp 12/27 or 4111 1111 1111 1111 again; VÖEN 1401555071",
      attachments: [{ filename: "statement.docx", content: await doc.docx(["IBAN GB82 WEST 1234 5698 7654 32"]) }],
    };
    const verdict = await platform.services.dlp.inspect(tenant.projectId, content);
    expect(verdict.mode).toBe("warn");
    // voen is not among the project's types.
    expect(verdict.findings).toEqual([
      { type: "card", masked: "4111 **** **** 1111", where: "text", full: true, mass: false, count: 2 },
      { type: "iban", masked: "GB82 **** 5432", where: "attachment:statement.docx", full: false, mass: false, count: 1 },
    ]);
    expect(verdict.warnings).toEqual(["DLP: 2 findings: card in text (2 times), iban in attachment:statement.docx"]);

    const db = platform.db;
    await platform.services.backend.transact((tx) => platform.services.dlp.record(tx, tenant.projectId, verdict.findings, { action: "warned", messageId: "msg_test1", from: "a@dlp.test", to: "b@example.org" }));
    const events = db.prepare("SELECT payload FROM events WHERE project_id = ? AND type = 'mail.dlp' ORDER BY created_at").all(tenant.projectId) as { payload: string }[];
    expect(events.map((e) => JSON.parse(e.payload).data)).toEqual(verdict.findings.map((finding) => ({ messageId: "msg_test1", action: "warned", from: "a@dlp.test", to: "b@example.org", finding })));

    const log = await tenant.api("GET", "/v1/mail/dlp-events?limit=1");
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ total: 2, offset: 0, limit: 1, hasMore: true });
    expect(log.body.events[0]).toMatchObject({ action: "warned", messageId: "msg_test1", from: "a@dlp.test", to: "b@example.org", finding: verdict.findings[1] });
    expect(log.body.events[0].id).toMatch(/^dlp_/);
    const later = await tenant.api("GET", `/v1/mail/dlp-events?since=${encodeURIComponent(log.body.events[0].createdAt)}`);
    expect(later.body).toMatchObject({ events: [], total: 0, hasMore: false });
  });

  it("records a blocked send without a message id, and another project sees none of it", async () => {
    const finding = { type: "encrypted" as const, masked: "password-protected zip entry", where: "attachment:a.zip/x.txt", full: false, mass: false, count: 1 };
    await platform.services.backend.transact((tx) => platform.services.dlp.record(tx, tenant.projectId, [finding], { action: "blocked", messageId: null, from: "a@dlp.test", to: "c@example.org" }));
    const log = await tenant.api("GET", "/v1/mail/dlp-events");
    expect(log.body.events[0]).toMatchObject({ action: "blocked", messageId: null, finding });
    const other = await platform.newTenant("dlp-other");
    expect((await other.api("GET", "/v1/mail/dlp-events")).body).toMatchObject({ events: [], total: 0 });
  });

  it("refuses a bad page size with 400 and the error body", async () => {
    const r = await tenant.api("GET", "/v1/mail/dlp-events?limit=500");
    expect(r.status).toBe(400);
    expect(r.body.code).toBe("invalid_request");
  });
});
