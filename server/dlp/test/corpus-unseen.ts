// The second labelled corpus (issue 31), written after the rules of that issue were changed and
// not fitted to them: the classes of input the outside corpus found weak. Tables whose labels are
// only in the header or the row; card schemes beyond the usual test numbers; what HTML carries
// without rendering; markings as tags; every evasion of the card probe applied to other types as
// well; containers a mail client opens; and hard negatives for each (full-width order numbers
// that fail Luhn, tables of codes that are not sensitive, clean archives and messages).
// Each sample names its class of place in `place`, for the per-place table.
import { gzipSync } from "node:zlib";
import type { OutgoingContent } from "../dlp-port.ts";
import type { Sample } from "./corpus.ts";
import * as doc from "./documents.ts";

export interface PlacedSample extends Sample {
  place: string;
}

const attach = (filename: string, content: Buffer | string, contentType?: string): OutgoingContent => ({
  subject: "Documents",
  text: "Please see the attachment.",
  attachments: [{ filename, content: Buffer.isBuffer(content) ? content : Buffer.from(content), contentType }],
});

/** A message as a client attaches it (forward as attachment): headers, a body in base64, optionally an attachment of its own. */
function eml(subject: string, body: string, inner?: { filename: string; data: string }, extraHeaders: string[] = []): Buffer {
  const b64 = (s: string) => Buffer.from(s).toString("base64").replace(/.{76}/g, "$&\r\n");
  const head = ["From: Leyla Mammadova <leyla@example.az>", "To: Orkhan <orkhan@example.az>", `Subject: ${subject}`, "Date: Mon, 23 Nov 2026 09:15:00 +0400", "Message-ID: <a1b2c3@example.az>", "MIME-Version: 1.0", ...extraHeaders];
  if (!inner) return Buffer.from([...head, "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", "", b64(body), ""].join("\r\n"));
  return Buffer.from(
    [
      ...head,
      'Content-Type: multipart/mixed; boundary="b1"',
      "",
      "--b1",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: base64",
      "",
      b64(body),
      "--b1",
      `Content-Type: text/plain; name="${inner.filename}"`,
      `Content-Disposition: attachment; filename="${inner.filename}"`,
      "Content-Transfer-Encoding: base64",
      "",
      b64(inner.data),
      "--b1--",
      "",
    ].join("\r\n"),
  );
}

/** Digits written in another script: the zero of that script's run (U+FF10 full-width, U+0660 Arabic-Indic, U+06F0 Persian, U+0966 Devanagari). */
const script = (s: string, zero: number) => s.replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)));
const interleave = (s: string, c: string) => s.replace(/(\d)(?=\d)/g, `$1${c}`);

type Build = () => Promise<{ content: OutgoingContent; at: string }> | { content: OutgoingContent; at: string };
interface Case {
  /** The types the sample holds, space-separated. */
  type: string;
  place: string;
  build: Build;
}

const positiveCases: Case[] = [
  // Tables: the label only in the header or the row.
  { type: "swift iban", place: "csv table", build: () => ({ content: attach("banks.csv", "Beneficiary;Bank;BIC;Account\nAzersun Holding;Kapital Bank;AIIBAZ2X;AZ91AIIB38060019440010512119\n"), at: "attachment:banks.csv" }) },
  { type: "passport", place: "csv table", build: () => ({ content: attach("guests.csv", "Guest,Nationality,Document number,Arrival\nHans Becker,DE,C03005988,2026-12-01\nAnna Kowalska,PL,,2026-12-02\n".replace("Document number", "Passport #")), at: "attachment:guests.csv" }) },
  { type: "fin", place: "csv table", build: () => ({ content: attach("staff.csv", "\ufeffTabel,Ad Soyad,FİN,Vəzifə\n104,Rəşad Əliyev,6ZRT4K2,mühasib\n"), at: "attachment:staff.csv" }) },
  { type: "voen", place: "csv table", build: () => ({ content: attach("vendors.csv", "Vendor\tCity\tVOEN\nBakı Tikinti MMC\tBakı\t1702345671\n"), at: "attachment:vendors.csv" }) },
  { type: "card", place: "csv table", build: () => ({ content: attach("cards.csv", "holder,card_number,exp\nJ. Smith,5019 7170 1010 3742,08/29\n"), at: "attachment:cards.csv" }) },
  { type: "swift", place: "csv table", build: () => ({ content: attach("form.csv", "Field,Value\nBank name,Raiffeisen\nSWIFT code,RZBAATWW\n"), at: "attachment:form.csv" }) },
  { type: "voen", place: "xlsx table", build: async () => ({ content: attach("suppliers.xlsx", await doc.xlsx([["Supplier list Q4 2026"], ["Name", "Phone", "VÖEN", "Contract"], ["Azər Metal", "+994 12 555 01 02", 2003456782, "C-77"]])), at: "attachment:suppliers.xlsx" }) },
  { type: "swift", place: "xlsx table", build: async () => ({ content: attach("pay.xlsx", await doc.xlsx([["Name", "Comment", "SWIFT", "Amount"], ["Wien Trade", "", "BKAUATWW", 1200]])), at: "attachment:pay.xlsx" }) },
  { type: "passport", place: "xlsx table", build: async () => ({ content: attach("visa.xlsx", await doc.xlsx([["", "Applicant 1", "Applicant 2"], ["Name", "Ali Hasanov", "Nigar Hasanova"], ["Passport", "AA7654321", "AA7654322"]])), at: "attachment:visa.xlsx" }) },
  { type: "fin", place: "xlsx table", build: async () => ({ content: attach("hr.xlsx", await doc.xlsx([["No", "Employee", "FIN kod"], [1, "Samir Quliyev", "8MN2PQ7"]])), at: "attachment:hr.xlsx" }) },
  { type: "card", place: "xlsx table", build: async () => ({ content: attach("refunds.xlsx", await doc.xlsx([["Order", "Card", "Amount"], ["R-1001", 4532015112830366, 25]])), at: "attachment:refunds.xlsx" }) },
  // Card schemes beyond the usual test numbers.
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", text: "Mir card 2200 7000 1234 5004, valid 10/28", attachments: [] }, at: "text" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", html: "<p>Troy kart: <b>9792 0000 1234 0009</b></p>", attachments: [] }, at: "html" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", text: "RuPay 6521 0000 4567 0004 for the Delhi office", attachments: [] }, at: "text" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", html: "<div>UnionPay 6222 0212 3456 7890 3</div>", attachments: [] }, at: "html" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", text: "银联卡 6217 8500 0000 0000 001 (UnionPay, no check digit)", attachments: [] }, at: "text" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "JCB 3566 0020 2036 0505 on file", attachments: [] }, at: "subject" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", text: "Maestro 6759 6498 2643 8008", attachments: [] }, at: "text" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", text: "Corporate Mastercard 2720 9912 3456 7001", attachments: [] }, at: "text" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", text: "Diners 3095 123456 0009", attachments: [] }, at: "text" }) },
  { type: "card", place: "card scheme", build: () => ({ content: { subject: "Payment", text: "UzCard 8600 1234 5678 9004", attachments: [] }, at: "text" }) },
  // What HTML carries beyond what it renders.
  { type: "secret", place: "html carried", build: () => ({ content: { subject: "Build", html: "<p>Deploy done.</p><!-- aws_access_key_id=AKIAZ7VRSQ4WMXLD2N3P -->", attachments: [] }, at: "html" }) },
  { type: "iban", place: "html carried", build: () => ({ content: { subject: "Invoice", html: '<a href="https://pay.example.com/?iban=GB29NWBK60161331926819">Pay now</a>', attachments: [] }, at: "html" }) },
  { type: "swift", place: "html carried", build: () => ({ content: { subject: "Form", html: '<form><input type="hidden" name="swift" value="NWBKGB2L"><button>Send</button></form>', attachments: [] }, at: "html" }) },
  { type: "passport", place: "html carried", build: () => ({ content: { subject: "Visa", html: '<p>Applicant <span title="Passport N12345678">Aysel</span></p>', attachments: [] }, at: "html" }) },
  { type: "card", place: "html carried", build: () => ({ content: { subject: "Receipt", html: '<p>Thanks!</p><span style="display:none;color:#fff">card 6011 0009 9013 9424</span>', attachments: [] }, at: "html" }) },
  { type: "confidential", place: "html carried", build: () => ({ content: { subject: "Plan", html: '<img src="cid:logo" alt="STRICTLY CONFIDENTIAL"><p>See the plan.</p>', attachments: [] }, at: "html" }) },
  // Markings as tags and prefixes.
  { type: "confidential", place: "marking tag", build: () => ({ content: { subject: "[Confidential] Q4 budget draft", text: "Numbers attached.", attachments: [] }, at: "subject" }) },
  { type: "confidential", place: "marking tag", build: () => ({ content: { subject: "Fwd: (Internal Use Only) reorg", text: "FYI", attachments: [] }, at: "subject" }) },
  { type: "confidential", place: "marking tag", build: () => ({ content: { subject: "Hesabat", text: "Salam,\nHesabat əlavədədir. {Məxfi}\nHörmətlə", attachments: [] }, at: "text" }) },
  { type: "confidential", place: "marking tag", build: () => ({ content: { subject: "Notes", text: "Board notes #confidential #board", attachments: [] }, at: "text" }) },
  { type: "confidential", place: "marking tag", build: () => ({ content: attach("memo.txt", "Sensitivity: Company-Confidential\n\nMemo on the merger."), at: "attachment:memo.txt" }) },
  // Evasion, applied to other types than the card of the probe.
  { type: "iban", place: "evasion", build: () => ({ content: { subject: "Bank", text: `IBAN ${interleave("DE44500105175407324931", "\u200b")}`, attachments: [] }, at: "text" }) },
  { type: "voen", place: "evasion", build: () => ({ content: { subject: "VÖEN", text: `VÖEN: ${script("9900003611", 0xff10)}`, attachments: [] }, at: "text" }) },
  { type: "card", place: "evasion", build: () => ({ content: { subject: "Card", text: `Kart: ${script("4532 0151 1283 0366", 0x6f0)}`, attachments: [] }, at: "text" }) },
  { type: "card", place: "evasion", build: () => ({ content: { subject: "Card", text: `Card ${"371449635398431".replace(/(\d{4})(\d{6})(\d{5})/, "$1\u00ad$2\u00ad$3")}`, attachments: [] }, at: "text" }) },
  { type: "card", place: "evasion", build: () => ({ content: { subject: "Card", text: `card ${"5425233430109903".match(/.{4}/g)!.join("\u00a0")}`, attachments: [] }, at: "text" }) },
  { type: "card", place: "evasion", build: () => ({ content: { subject: "Card", html: `<p>card ${interleave("4916338506082832", "&#8205;")}</p>`, attachments: [] }, at: "html" }) },
  { type: "passport", place: "evasion", build: () => ({ content: { subject: "Passport", text: `Passport: ${script("C03005988", 0x966)}`, attachments: [] }, at: "text" }) },
  { type: "card", place: "evasion", build: () => ({ content: { subject: "Card", text: `card ${script("3530111333300000", 0x660)}`, attachments: [] }, at: "text" }) },
  // Every place a recipient reads: custom headers, file names.
  { type: "card", place: "header", build: () => ({ content: { subject: "Order", text: "Thanks", headers: { "X-Payment-Ref": "5425233430109903" }, attachments: [] }, at: "header:X-Payment-Ref" }) },
  { type: "iban", place: "header", build: () => ({ content: { subject: "Order", text: "Thanks", headers: { "X-Account": "BE68 5390 0754 7034" }, attachments: [] }, at: "header:X-Account" }) },
  { type: "secret", place: "header", build: () => ({ content: { subject: "Hook", text: "ok", headers: { "X-Debug": "token ghp_R2x9Lm4Kq7Vt1Np9Ks3Wd6Hy0Bc5Fg8JzA1b" }, attachments: [] }, at: "header:X-Debug" }) },
  { type: "card", place: "file name", build: () => ({ content: attach("receipt 4916338506082832.pdf.txt", "Receipt"), at: "attachment:receipt 4916 **** **** 2832.pdf.txt" }) },
  { type: "iban", place: "file name", build: () => ({ content: attach("statement_PL61109010140000071219812874.txt", "Statement"), at: "attachment:statement_PL61 **** 2874.txt" }) },
  // Containers a mail client opens.
  { type: "card", place: "gzip", build: () => ({ content: attach("payments.csv.gz", gzipSync("date,card,amount\n2026-11-20,4532015112830366,120.00\n")), at: "attachment:payments.csv.gz" }) },
  { type: "secret", place: "gzip", build: () => ({ content: attach("app.log.gz", gzipSync("INFO start\nDEBUG password: Xylo#2026pass\n")), at: "attachment:app.log.gz" }) },
  { type: "swift", place: "gzip", build: () => ({ content: attach("bank.json.gz", gzipSync(JSON.stringify({ bank: "UBS", swift: "UBSWCHZH80A" }))), at: "attachment:bank.json.gz" }) },
  { type: "card", place: "attached message", build: () => ({ content: attach("fwd.eml", eml("Card details", "Hi,\nthe card is 3566 0020 2036 0505, exp 04/29.\n"), "message/rfc822"), at: "attachment:fwd.eml" }) },
  { type: "iban", place: "attached message", build: () => ({ content: attach("Re_ invoice.eml", eml("Invoice", "Pay to GE29NB0000000101904917 please.")), at: "attachment:Re_ invoice.eml" }) },
  { type: "voen", place: "attached message", build: () => ({ content: attach("forward.eml", eml("Müqavilə", "Əlavə edilmişdir.", { filename: "rekvizit.txt", data: "VÖEN: 1500234561\n" })), at: "attachment:forward.eml/rekvizit.txt" }) },
  { type: "confidential", place: "attached message", build: () => ({ content: attach("original message", eml("CONFIDENTIAL - board pack", "See the pack."), "message/rfc822"), at: "attachment:original message" }) },
];

/** Hard negatives for the new classes: each in its place, none may be reported. */
const negativeCases: { place: string; build: () => Promise<OutgoingContent> | OutgoingContent }[] = [
  { place: "evasion", build: () => ({ subject: "Order", text: `Order ${script("4111 1111 1111 1112", 0xff10)} has shipped`, attachments: [] }) },
  { place: "evasion", build: () => ({ subject: "Sifariş", text: `Sifariş № ${script("100234567", 0x660)} göndərildi`, attachments: [] }) },
  { place: "evasion", build: () => ({ subject: "Call", text: `Zəng: ${script("+994 50 123 45 67", 0x6f0)}`, attachments: [] }) },
  { place: "evasion", build: () => ({ subject: "Ref", text: `Ref ${interleave("5555555555554445", "\u200b")}`, attachments: [] }) },
  { place: "evasion", build: () => ({ subject: "Total", text: "Total: 1\u00a0234\u00a0567,89 AZN", attachments: [] }) },
  { place: "csv table", build: () => attach("products.csv", "SKU,Product,Barcode,Weight\n73513537,BUSINESS CARD HOLDER,4006381333931,0.25\n73513538,PASSPORT COVER,4006381333948,0.10\n") },
  { place: "csv table", build: () => attach("flights.csv", "Flight,From,To,Booking ref\nJ2 8123,GYD,IST,ABCDEF\nJ2 8125,GYD,TBS,QWERTY\n") },
  { place: "csv table", build: () => attach("orders.csv", "Order number,Customer,Amount\n4111111111111112,Acme,100\n5555555555554445,Beta,200\n") },
  { place: "csv table", build: () => attach("fields.csv", "Field,Required\nPassport,yes\nVÖEN,no\nSWIFT,yes\n") },
  { place: "xlsx table", build: async () => attach("stock.xlsx", await doc.xlsx([["Item", "Code", "Qty"], ["Paper A4", "PAPERA4X", 120], ["Toner", "TONER12", 7]])) },
  { place: "xlsx table", build: async () => attach("phones.xlsx", await doc.xlsx([["Name", "Phone", "Tax ID status"], ["Acme", 994124045555, "pending"]])) },
  { place: "html carried", build: () => ({ subject: "News", html: '<!-- layout v2, build 4111 --><p>Hello</p><img src="logo.png" alt="Company logo" title="Our logo"><input type="hidden" name="utm" value="newsletter-2026-11">', attachments: [] }) },
  { place: "html carried", build: () => ({ subject: "News", html: '<a href="https://shop.example.com/order/100234567?ref=mail">Order 100234567</a><span style="display:none">preheader text</span>', attachments: [] }) },
  { place: "marking tag", build: () => ({ subject: "[Draft] Q4 plan", text: "Comments welcome.", attachments: [] }) },
  { place: "marking tag", build: () => ({ subject: "Privacy", text: "We keep (confidential) records as the law requires. #confidentiality #privacy", attachments: [] }) },
  { place: "header", build: () => ({ subject: "Order", text: "Thanks", headers: { "X-Order-Id": "100234567", "X-Campaign": "Black Friday 2026" }, attachments: [] }) },
  { place: "file name", build: () => attach("invoice 2026-11-000123.txt", "Invoice") },
  { place: "gzip", build: () => attach("report.txt.gz", gzipSync("Quarterly report\nRevenue grew 12%.\n")) },
  { place: "attached message", build: () => attach("fwd.eml", eml("Lunch", "See you at 13:00 at room 4111."), "message/rfc822") },
  { place: "card scheme", build: () => ({ subject: "Tracking", text: "Tracking 9400 1000 0000 0000 0000 00 and IMEI 356938035643809", attachments: [] }) },
];

export async function unseenCorpus(): Promise<PlacedSample[]> {
  const samples: PlacedSample[] = [];
  for (const [i, c] of positiveCases.entries()) {
    const { content, at } = await c.build();
    samples.push({ name: `${c.type} #${i} in ${c.place}`, place: c.place, content, expected: c.type.split(" ").map((t) => `${t} ${at}`) });
  }
  for (const [i, c] of negativeCases.entries()) samples.push({ name: `negative #${i} in ${c.place}`, place: c.place, content: await c.build(), expected: [] });
  return samples;
}
