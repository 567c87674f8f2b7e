// The labelled corpus: for every type, true positives in every place a message has (subject,
// text, HTML, txt, csv, json, docx, xlsx, pptx, pdf, inside a zip, in an image through OCR), and
// the hard negatives the issue lists in the same places. Values and sentences vary by place so
// no detector rule is fitted to one phrasing.
import type { DlpType, OutgoingContent } from "../dlp-port.ts";
import * as doc from "./documents.ts";

export interface Sample {
  name: string;
  content: OutgoingContent;
  /** `${type} ${where}` pairs the scanner must report, and nothing else. */
  expected: string[];
}

type Lines = string[];

/** True positives: each entry is a few lines of realistic text holding one value of the type. */
export const positives: Record<Exclude<DlpType, "encrypted">, Lines[]> = {
  card: [
    ["Please charge the card 4111 1111 1111 1111 for the renewal."],
    ["Card number: 5555-5555-5555-4444, expiry 09/28"],
    ["Amex on file 378282246310005, billing ZIP 10001"],
    ["Kart nömrəsi: 6011 1111 1111 1117"],
    ["Номер карты 3530 1113 3330 0000, CVV 737"],
    ["Use 4012888888881881 for the test order"],
    ["card=5105105105105100&amount=25.00"],
    ["MasterCard 2223 0031 2200 3222 exp 11/29 cvc 123"],
    ["Visa Debit: 4000 0566 5566 5556"],
    ["UnionPay card 6200 0000 0000 0005 (expires 03/30)"],
    ["Customer paid with 4242 4242 4242 4242."],
    ["Payment card: 5200-8282-8282-8210"],
  ],
  track: [
    ["Raw swipe: %B4111111111111111^SMITH/JOHN^2712101000000000000000000?"],
    ["Track 2 data ;5555555555554444=28011010000000000?"],
    ["POS log: B4012888888881881^DOE/JANE A^2905201123456789?"],
    ["t2=4242424242424242=27121010000012300000"],
    ["%B5105105105105100^MAMMADOV/ELCIN^3001101000000000000?"],
    [";378282246310005=29041010000000000000?"],
  ],
  iban: [
    ["Please transfer to IBAN GB82 WEST 1234 5698 7654 32 by Friday."],
    ["Konto: DE89370400440532013000"],
    ["Hesab: AZ21 NABZ 0000 0000 1370 1000 1944"],
    ["IBAN: FR14 2004 1010 0505 0001 3M02 606"],
    ["Beneficiary account NL91ABNA0417164300"],
    ["TR33 0006 1005 1978 6457 8413 26 (Ziraat)"],
    ["Счёт получателя CH9300762011623852957"],
    ["Bank details - IBAN AZ91 AIIB 3806 0019 4400 1051 2119"],
    ["Account: ES91 2100 0418 4502 0005 1332"],
    ["Pay to: IT60 X054 2811 1010 0000 0123 456"],
  ],
  swift: [
    ["SWIFT: DEUTDEFF"],
    ["BIC: NABZAZ2X"],
    ["Please use SWIFT code COBADEFFXXX for the wire."],
    ["Bank: Kapital Bank OJSC, SWIFT AIIBAZ2X"],
    ["SWIFT/BIC: BNPAFRPPXXX"],
    ["S.W.I.F.T.: IBAZAZ2X"],
    ["Beneficiary bank BIC CHASUS33"],
    ["SWIFT kodu: PAHAAZ22"],
  ],
  fin: [
    ["FİN: 5VBK5VR"],
    ["FIN kod: 7HG2K9L"],
    ["Şəxsiyyət vəsiqəsinin FİN kodu 2ZX4M8P"],
    ["Personal No. 6KL3W2N"],
    ["ФИН: 4TR7Y2K"],
    ["Employee FIN code: 19AB3CD"],
    ["Vətəndaşın FİN-i 3PQ8RT5"],
  ],
  passport: [
    ["Passport number: C01234567"],
    ["Pasport №: AA1234567"],
    ["Номер паспорта: 45 10 123456"],
    ["passport no. 532847190"],
    ["Guest passport AZE 12345678"],
    ["Passport: C09876543, issued 2021"],
    ["Travel document number: P7654321"],
    ["Паспорт серия 45 12 номер 654321"],
  ],
  voen: [
    ["VÖEN: 1401555071"],
    ["VOEN 9900071001"],
    ["Tax ID (VÖEN): 140 155 5072"],
    ["ВОЕН 1700038881"],
    ["Vergi ödəyicisinin eyniləşdirmə nömrəsi: 2001234562"],
    ["Supplier TIN 1500234561"],
  ],
  secret: [
    ["aws_access_key_id = AKIAIOSFODNN7EXAMPLE"],
    ["export GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a"],
    ["slack: xoxb-2638492013-2938475610234-AbCdEfGhIjKlMnOpQrStUvWx"],
    ["Stripe key sk_live_51HqLyjWDarjtT1zdp7dcXYZabc"],
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"],
    ["-----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7bq6pW0l", "-----END RSA PRIVATE KEY-----"],
    ["Our key: platform_sk_Z4x8Qm2Lr7Vt1Np9Ks3Wd6Hy0Bc5Fg8J"],
    ["password: Winter2025!"],
    ["DATABASE_URL=postgres://app:S3cr3tPass@db.internal:5432/app"],
    ["Parol: Baku#2024"],
  ],
  confidential: [
    ["CONFIDENTIAL", "Quarterly results draft"],
    ["Strictly confidential - do not forward", "Board minutes"],
    ["MƏXFİ", "Daxili hesabat"],
    ["КОНФИДЕНЦИАЛЬНО", "Отчёт за квартал"],
    ["Для служебного пользования", "Приказ №12"],
    ["Classification: Internal use only", "Roadmap 2027"],
    ["Yalnız daxili istifadə üçün", "Büdcə layihəsi"],
    ["Private and Confidential", "Dear Mr. Aliyev,"],
    ["Strictly Private & Confidential", "Salary review 2027"],
  ],
};

/** Hard negatives: look like sensitive data, are not. */
export const negatives: Lines[] = [
  ["Order number 4111 1111 1111 1112 has shipped."],
  ["Invoice INV-2024-000123 for order #100234567, total 1 234.56 AZN"],
  ["Call us: +994 12 404 55 55 or +1 (415) 555-0132"],
  ["Request id 550e8400-e29b-41d4-a716-446655440000"],
  ["sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"],
  ["Thumbnail: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="],
  ["We keep all client information confidential and secure."],
  ["IBAN GB82 WEST 1234 5698 7654 33 was rejected as invalid"],
  ["The account DE89 3704 0044 0532 0130 01 does not exist"],
  ["Your password must contain at least 8 characters."],
  ["Flight J2 8123 departs on 12/25 at 10:40"],
  ["Tracking number 1Z999AA10123456784"],
  ["Passport photos must be 35x45 mm; the passport fee is 60 AZN."],
  ["The FIN code field is required for registration."],
  ["Barcode 4006381333931, SKU 73513537"],
  ["Meeting on 2024-11-23 at 10:30 in room 4111"],
  ["Version 4.111.1111.1111 released"],
  ["Our BUSINESS PARTNERS use the SWIFT network daily"],
  ["Please keep this confidential between us, thanks."],
  ["Əlaqə telefonu: 050 123 45 67, VÖEN sahəsi boşdur"],
  ["Commit 3f2a9c1d7e4b8a6f0c5d2e1b9a8f7c6d5e4b3a21 fixed the password reset flow"],
  ["ISBN 978-3-16-148410-0, page 1234567890"],
  ["Serial number SN 5555 5555 5555 4445, warranty until 12/27"],
  ["CONFIDENTIALITY NOTICE: this e-mail may contain privileged information"],
  ["Meeting ID: 845 1234 5678, passcode: 123456"],
];

const places = ["subject", "text", "html", "txt", "csv", "json", "docx", "xlsx", "pptx", "pdf", "zip"] as const;
type Place = (typeof places)[number];

const htmlOf = (lines: Lines) => `<html><body><table><tr><td>${lines.map((l) => l.replace(/&/g, "&amp;").replace(/</g, "&lt;")).join("</td></tr><tr><td>")}</td></tr></table></body></html>`;

/** Splits "Label: value" into a header and a cell, as a spreadsheet or CSV export would hold it. */
function asRow(line: string): [string, string] {
  const m = /^(.*?)[:=]\s*(.+)$/.exec(line);
  return m && !/\d/.test(m[1]) ? [m[1].trim(), m[2]] : ["note", line];
}

async function place(where: Place, lines: Lines, n: number): Promise<{ content: OutgoingContent; at: string }> {
  const text = lines.join("\n");
  const file = (filename: string, content: Buffer) => ({ content: { subject: "Hello", text: "See attached.", attachments: [{ filename, content }] }, at: `attachment:${filename}` });
  switch (where) {
    case "subject":
      return { content: { subject: lines.join(" "), attachments: [] }, at: "subject" };
    case "text":
      return { content: { subject: "Update", text: `Hi,\n\n${text}\n\nRegards`, attachments: [] }, at: "text" };
    case "html":
      return { content: { subject: "Update", html: htmlOf(lines), attachments: [] }, at: "html" };
    case "txt":
      return file(`notes-${n}.txt`, Buffer.from(`Notes\n${text}\n`));
    case "csv": {
      const rows = lines.map(asRow);
      return file(`export-${n}.csv`, Buffer.from(`${rows.map((r) => r[0]).join(",")}\n${rows.map((r) => `"${r[1].replace(/"/g, '""')}"`).join(",")}\n`));
    }
    case "json":
      return file(`record-${n}.json`, Buffer.from(JSON.stringify({ id: n, note: text }, null, 2)));
    case "docx":
      return file(`letter-${n}.docx`, await doc.docx(lines));
    case "xlsx": {
      const rows = lines.map(asRow);
      return file(`sheet-${n}.xlsx`, await doc.xlsx([rows.map((r) => r[0]), rows.map((r) => r[1])]));
    }
    case "pptx":
      return file(`deck-${n}.pptx`, await doc.pptx(lines));
    case "pdf":
      return file(`scan-${n}.pdf`, await doc.pdf(lines));
    case "zip": {
      const inner = `folder/inner-${n}.txt`;
      const zip = await doc.deflatedZip([{ name: "readme.txt", data: "Archive of documents" }, { name: inner, data: text }]);
      return { content: { subject: "Files", attachments: [{ filename: `bundle-${n}.zip`, content: zip }] }, at: `attachment:bundle-${n}.zip/${inner}` };
    }
  }
}

/** The text-place corpus: every positive value in a rotating place, every negative in every place. */
export async function textCorpus(): Promise<Sample[]> {
  const samples: Sample[] = [];
  let n = 0;
  for (const [type, values] of Object.entries(positives)) {
    // Every value in at least two places, every place for every type.
    const count = Math.max(values.length * 2, places.length);
    for (let i = 0; i < count; i++) {
      const lines = values[i % values.length];
      const where = places[i % places.length];
      // Standard PDF fonts cannot write Cyrillic or №: that value goes to a docx instead.
      const target = where === "pdf" && /[\u0400-\u04ff\u2116]/.test(lines.join("")) ? "docx" : where;
      const { content, at } = await place(target, lines, n++);
      samples.push({ name: `${type} #${i % values.length} in ${target}`, content, expected: [`${type} ${at}`] });
    }
  }
  for (const [i, lines] of negatives.entries()) {
    for (const where of places) {
      const { content } = await place(where, lines, n++);
      samples.push({ name: `negative #${i} in ${where}`, content, expected: [] });
    }
  }
  return samples;
}

/** The files that cannot be inspected: each must be reported as `encrypted` at its place. */
export async function encryptedCorpus(): Promise<Sample[]> {
  const zip = doc.storedZip([{ name: "public.txt", data: "Agenda" }, { name: "salaries.xlsx", data: "secret data", password: "hunter2" }]);
  return [
    { name: "encrypted zip entry", content: { subject: "Files", attachments: [{ filename: "hr.zip", content: zip }] }, expected: ["encrypted attachment:hr.zip/salaries.xlsx"] },
    { name: "encrypted pdf", content: { subject: "Statement", attachments: [{ filename: "statement.pdf", content: await doc.pdf(["Balance"], { encrypt: true }) }] }, expected: ["encrypted attachment:statement.pdf"] },
    { name: "encrypted docx", content: { subject: "Contract", attachments: [{ filename: "contract.docx", content: doc.encryptedOoxml() }] }, expected: ["encrypted attachment:contract.docx"] },
    {
      name: "encrypted pdf inside a zip",
      content: { subject: "Files", attachments: [{ filename: "docs.zip", content: doc.storedZip([{ name: "a/statement.pdf", data: await doc.pdf(["x"], { encrypt: true }) }]) }] },
      expected: ["encrypted attachment:docs.zip/a/statement.pdf"],
    },
    { name: "plain pdf", content: { subject: "Brochure", attachments: [{ filename: "brochure.pdf", content: await doc.pdf(["Spring offers"]) }] }, expected: [] },
    { name: "plain zip", content: { subject: "Files", attachments: [{ filename: "plain.zip", content: doc.storedZip([{ name: "a.txt", data: "hello" }]) }] }, expected: [] },
  ];
}
