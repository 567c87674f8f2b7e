// A sender's attachment name cannot make a reader misread it (decisions M9, M10): control
// characters, path separators and Unicode's bidirectional controls are replaced by `_` in the
// message detail's `filename` and in both forms of the download's Content-Disposition, so
// `invoice<U+202E>gvs.exe`, shown as `invoiceexe.svg` by any bidi-aware display, arrives as
// `invoice_gvs.exe`. Sent by a real SMTP client to the listener; on SQLite and on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends } from "../test/backends.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { sendTo } from "../test/smtp.ts";
import { platformDatabase, type PlatformDatabase } from "../test/platform-database.ts";

// [what the sender wrote, what the reader gets]. Every Bidi_Control character of Unicode 16, each
// in a name of its own, so one left in fails by name; and neighbours that must stay as they are.
const bidi = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
const cases: [string, string][] = [
  ["invoice\u202Egvs.exe", "invoice_gvs.exe"],
  ["\u2067report\u2069 final\u200F.pdf", "_report_ final_.pdf"],
  ...bidi.map((c): [string, string] => [`b${c.toString(16)}${String.fromCodePoint(c)}x.txt`, `b${c.toString(16)}_x.txt`]),
  ["line\u2028break\u2029.txt", "line_break_.txt"],
  ["tab\there\u0085c1.txt", "tab_here_c1.txt"],
  ["dir/..\\evil.txt", "dir_.._evil.txt"],
  // Joiners shape emoji and scripts (Persian, Indic): kept.
  ["نامه\u200Cها 👩\u200D💻.txt", "نامه\u200Cها 👩\u200D💻.txt"],
  ["Счёт №7.pdf", "Счёт №7.pdf"],
];

describe.each(backends)("attachment names on %s", (backend) => {
  let database: PlatformDatabase | undefined;
  let p: TestPlatform;
  let t: Tenant;
  let mailbox: string;

  beforeAll(async () => {
    database = await platformDatabase(backend);
    const { databaseUrl } = database;
    p = await startTestPlatform({ databaseUrl }, { runWorker: false });
    t = await p.newTenant(`names-${backend}`);
    mailbox = (await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" })).body.id;
    await sendTo(p.smtp!.port, {
      from: "billing@shop.test",
      to: `alice@${t.domain}`,
      subject: "Names",
      text: "See attached.",
      attachments: cases.map(([filename], i) => ({ filename, content: Buffer.from(`file ${i}`), contentType: "application/octet-stream" })),
    });
  });
  afterAll(async () => {
    await p?.stop();
    await database?.stop();
  });

  it("the message detail names each attachment without what would be misread", async () => {
    const list = await t.api("GET", `/v1/mailboxes/${mailbox}/messages`);
    const id = list.body.messages[0].id;
    const detail = await t.api("GET", `/v1/mailboxes/${mailbox}/messages/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.attachments.map((a: { filename: string }) => a.filename)).toEqual(cases.map(([, want]) => want));
  });

  it("each download's Content-Disposition carries the cleaned name in both forms, and the bytes", async () => {
    const id = (await t.api("GET", `/v1/mailboxes/${mailbox}/messages`)).body.messages[0].id;
    for (const [i, [, want]] of cases.entries()) {
      const res = await fetch(`${p.url}/v1/mailboxes/${mailbox}/messages/${id}/attachments/${i + 1}`, { headers: { authorization: `Bearer ${t.key}` } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).toString()).toBe(`file ${i}`);
      const disposition = res.headers.get("content-disposition")!;
      const [, ascii, utf8] = /^attachment; filename="([^"]*)"; filename\*=UTF-8''(\S+)$/.exec(disposition)!;
      expect(decodeURIComponent(utf8), disposition).toBe(want);
      expect(ascii).toBe(want.replace(/[^\x20-\x7e]/g, "_"));
      expect(decodeURIComponent(utf8)).not.toMatch(/[\p{Bidi_Control}\p{Cc}]/u);
    }
  });
});
