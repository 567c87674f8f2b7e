// The third labelled corpus (issue 40), written after that rules and not fitted to them:
// new people, values, layouts and languages in the classes the outside measurement found weak.
// Tables in Word, PowerPoint (slides and notes), ODF and RTF whose labels are only in the header
// or the row; RTF as written by editors (\uN, \'hh in code pages 1251 and 1254, formatting groups
// inside numbers, tables); PDFs whose drawing order is not the reading order (forms drawn labels
// first, pages in three columns, card tables); row-labelled sheets with long headers; card
// numbers as UnionPay prints them and as a sender regroups them; labels in Spanish, Turkish,
// French, German, Russian and Azerbaijani, .env variables; text saved as UTF-16 or in a legacy
// code page; and hard negatives for each class (codes, dates, phone and tracking numbers,
// Luhn-failing numbers, labels without values, prose that names the labels).
import type { OutgoingContent } from "../dlp-port.ts";
import type { PlacedSample } from "./corpus-unseen.ts";
import * as doc from "./documents.ts";
import { renderJpegStrips } from "./images.ts";

const attach = (filename: string, content: Buffer | string, contentType?: string): OutgoingContent => ({
  subject: "Files for review",
  text: "Hello, the file is attached.",
  attachments: [{ filename, content: Buffer.isBuffer(content) ? content : Buffer.from(content), contentType }],
});

type Build = () => Promise<OutgoingContent> | OutgoingContent;
/** [types (space-separated, "" for a hard negative), class of place, file name or place, build]. */
type Case = [string, string, string, Build];

const at = (where: string) => (/^(?:text|html|subject)$/.test(where) ? where : `attachment:${where}`);

const cases: Case[] = [
  // Word tables: the header above rows 2 and on.
  ["passport", "docx table", "guests-baku.docx", async () => attach("guests-baku.docx", await doc.docxTables(["Qonaqların siyahısı"], [[["Ad, soyad", "Vətəndaşlıq", "Pasport"], ["Tural Məmmədli", "AZ", "C4F7G2K91"], ["Günel Rzayeva", "AZ", "C5H8J3L02"]]]))],
  ["voen swift", "docx table", "podryadchiki.docx", async () => attach("podryadchiki.docx", await doc.docxTables(["Подрядчики на 2027 год"], [[["Компания", "ИНН (ВОЕН)", "SWIFT"], ["Каспий Строй", "1503847261", "IBAZAZ2X"], ["Абшерон Лоджистик", "2304918572", "PAHAAZ22"]]]))],
  ["fin", "docx table", "isciler.docx", async () => attach("isciler.docx", await doc.docxTables([], [[["№", "Əməkdaş", "FİN"], ["1", "Orxan Səfərov", "3KP9RWZ"], ["2", "Aysel Nəbiyeva", "7HJ2M4N"]]], ["Hazırladı: kadrlar şöbəsi"]))],
  ["card", "docx table", "refunds-q1.docx", async () => attach("refunds-q1.docx", await doc.docxTables(["Refunds"], [[["Customer", "Card used", "Amount"], ["L. Brandt", "4929 5339 1826 4052", "120.00"], ["M. Okafor", "5425 2339 1826 4055", "75.50"]]]))],
  ["", "docx table", "inventory.docx", async () => attach("inventory.docx", await doc.docxTables(["Stock"], [[["SKU", "Pasaport kılıfı model", "Qty"], ["PK-204918", "Deri 3", "14"], ["PK-204919", "Kumaş 2", "9"]]]))],
  ["", "docx table", "calls.docx", async () => attach("calls.docx", await doc.docxTables(["Call log"], [[["Date", "Phone", "Order"], ["2026-12-01", "+994 50 318 22 47", "4929533918264051"], ["2026-12-02", "+49 30 901820", "100245"]]]))],
  // PowerPoint: tables on slides and in the speaker notes.
  ["iban swift", "pptx table", "partners.pptx", async () => attach("partners.pptx", await doc.pptxTable("Bank details of our partners", [["Partner", "IBAN", "BIC"], ["Kaya Tekstil", "TR33 0006 1005 1978 6457 8413 26", "TGBATRIS"], ["Lefèvre SA", "FR14 2004 1010 0505 0001 3M02 606", "BNPAFRPP"]]))],
  ["passport", "pptx notes table", "trip-review.pptx", async () => attach("trip-review.pptx", await doc.pptxTable("Trip to Istanbul", undefined, ["Speaker notes: travellers"], [["Name", "Pasaport"], ["Emre Yıldız", "U23918475"], ["Selin Aksoy", "U23918476"]]))],
  ["", "pptx table", "roadmap.pptx", async () => attach("roadmap.pptx", await doc.pptxTable("Roadmap", [["Quarter", "Passport feature", "Owner"], ["Q1 2027", "scan 2.0", "team 12"], ["Q2 2027", "release 3", "team 14"]]))],
  // ODF text with a table.
  ["fin", "odt table", "personal.odt", async () => attach("personal.odt", await doc.odt(["Siyahı"], [[["Soyad", "Ad", "FİN kodu"], ["Hüseynov", "Elvin", "2QX8VTL"], ["Kərimova", "Lalə", "9DRF5C1"]]]))],
  ["", "odt table", "meeting.odt", async () => attach("meeting.odt", await doc.odt(["Agenda"], [[["Time", "Topic", "Room"], ["10:00", "Tax ID process review", "B-1204"], ["11:30", "Passport photo booth", "C-0302"]]]))],
  // RTF as editors write it.
  ["fin", "rtf", "fin-kod.rtf", () => attach("fin-kod.rtf", doc.rtf(["Əməkdaşın F\u0130N kodu: 3KP9RWZ"]))],
  ["passport", "rtf", "pasport-cp1251.rtf", () => attach("pasport-cp1251.rtf", Buffer.from(String.raw`{\rtf1\ansi\ansicpg1251\deff0{\fonttbl{\f0\fnil\fcharset204 Times New Roman;}}\f0\fs24 \'cf\'e0\'f1\'ef\'ee\'f0\'f2 \'e3\'f0\'e0\'e6\'e4\'e0\'ed\'e8\'ed\'e0: 45 08 392817\par}`, "latin1"))],
  ["passport", "rtf", "pasaport-tr.rtf", () => attach("pasaport-tr.rtf", Buffer.from(String.raw`{\rtf1\ansi\ansicpg1254\deff0{\fonttbl{\f0 Calibri;}}\f0 Yolcu: Ay\'fee K\'fdl\'fd\'e7, pasaport numaras\'fd U23918477\par}`, "latin1"))],
  ["card", "rtf", "payment.rtf", () => attach("payment.rtf", Buffer.from(String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Arial;}}\f0 Card: {\b 5167} {\b 3239}18{\i 26} 4056\par}`, "latin1"))],
  ["voen swift", "rtf table", "suppliers.rtf", () => attach("suppliers.rtf", doc.rtf(["Təchizatçılar"], { tables: [[["Şirkət", "VÖEN", "SVİFT"], ["Qafqaz Enerji", "9900112231", "IBAZAZ2X"], ["Xəzər Logistika", "1503847261", "PAHAAZ22"]]] }))],
  ["confidential", "rtf", "memo.rtf", () => attach("memo.rtf", doc.rtf(["STRENG VERTRAULICH", "Protokoll der Vorstandssitzung"]))],
  ["", "rtf", "letter.rtf", () => attach("letter.rtf", doc.rtf(["Sayın müşterimiz, sipariş 4929-5339 teslim edildi.", "Tarih: 12/05/2026, takip no 1Z 999 AA1 01 2345 6784"]))],
  ["", "rtf table", "prices.rtf", () => attach("prices.rtf", doc.rtf(["Price list"], { tables: [[["Item", "Code", "Price"], ["Cable", "4012-88", "12.00"], ["Switch", "5105-10", "89.00"]]] }))],
  // PDF as laid out.
  ["passport fin", "pdf layout", "anketa.pdf", async () => attach("anketa.pdf", await doc.pdfAt([[
    // A form drawn labels first, then values: the stream says all labels, then all values.
    ...["Soyad", "Ad", "Pasport", "FIN"].map((t, i) => ({ text: t, x: 50, y: 700 - i * 20 })),
    ...["Qasimov", "Rauf", "C5H8J3L03", "7HJ2M4N"].map((t, i) => ({ text: t, x: 200, y: 700 - i * 20 })),
  ]]))],
  ["iban passport", "pdf layout", "newsletter.pdf", async () => attach("newsletter.pdf", await doc.pdfAt([[
    // Three columns of running text, drawn line by line across the page.
    ...[
      ["Donations for the winter school go to", "the spring conference in Ganja takes", "Please send the scans of documents."],
      ["IBAN GE29 NB00 0000 0101 9049 17 at the", "place on 2027-03-14 with guests from", "Passport number for Nino Beridze:"],
      ["Bank of Georgia, thank you all for the", "seven countries and many partners at", "18CV73512, as printed on the page."],
    ].flatMap((row, i) => row.map((t, c) => ({ text: t, x: 40 + c * 185, y: 720 - i * 14, size: 8 }))),
  ]]))],
  ["card", "pdf layout", "chargebacks.pdf", async () => attach("chargebacks.pdf", await doc.pdfAt([[
    { text: "Cardholder", x: 50, y: 720 }, { text: "Number", x: 220, y: 720 }, { text: "Date", x: 420, y: 720 },
    ...Array.from({ length: 12 }, (_, i) => [
      { text: `Client ${String.fromCharCode(65 + i)}`, x: 50, y: 700 - i * 16 },
      { text: doc.luhnNumber(["4", "51", "2202", "6011"][i % 4], 16, i + 3).replace(/(\d{4})(?=\d)/g, "$1 "), x: 220, y: 700 - i * 16 },
      { text: `2026-10-${String(i + 10)}`, x: 420, y: 700 - i * 16 },
    ]).flat(),
  ]]))],
  ["", "pdf layout", "timetable.pdf", async () => attach("timetable.pdf", await doc.pdfAt([[
    { text: "Flight", x: 50, y: 720 }, { text: "Passport control", x: 200, y: 720 }, { text: "Gate", x: 380, y: 720 },
    ...[["J2 8013", "Terminal 1, 06:40", "B12"], ["TK 6475", "Terminal 2, 09:15", "C07"], ["LH 2547", "Terminal 1, 13:20", "A03"]].flatMap((r, i) => r.map((t, c) => ({ text: t, x: [50, 200, 380][c], y: 700 - i * 16 }))),
  ]]))],
  ["", "pdf layout", "report.pdf", async () => attach("report.pdf", await doc.pdfAt([[
    ...[
      ["Quarterly volumes rose in every region", "Customer numbers 4012 8839 1826 4058", "Tracking 9400 1000 0000 0000 0000 00"],
      ["while costs stayed flat; see page 4 for", "and 5105 1039 1826 4050 were merged in", "was delivered on 2026-11-30 at 14:05"],
    ].flatMap((row, i) => row.map((t, c) => ({ text: t, x: 40 + c * 185, y: 720 - i * 14, size: 8 }))),
  ]]))],
  // Row-labelled sheets whose headers are long.
  ["passport voen", "xlsx row-labelled", "applicants.xlsx", async () => attach("applicants.xlsx", await doc.xlsx([["", "Primary applicant (account holder, as in the contract)", "Second applicant (co-borrower, spouse or partner)"], ["Passport", "P4271936", "P4271937"], ["Tax ID", "1503847261", "2304918572"]]))],
  ["", "xlsx row-labelled", "plan.xlsx", async () => attach("plan.xlsx", await doc.xlsx([["", "Budget for the passport renewal campaign (all regions)", "Actual"], ["Tax ID checks", 1200, 1184], ["Visits", 5300, 4988]]))],
  // Card numbers as printed and as regrouped.
  ["card", "card grouping", "text", () => ({ subject: "UnionPay", text: "银联 card 626239-3918264051770 for the Shanghai office", attachments: [] })],
  ["card", "card grouping", "text", () => ({ subject: "Card", text: "Please charge 4152 3839 1826 40 50 today", attachments: [] })],
  ["card", "card grouping", "text", () => ({ subject: "Card", text: `Kart: ${[..."5486013918264057"].join("\u200b").replace(/(\d)\u200b(\d)\u200b(\d)/, "$1 $2$3")}`, attachments: [] })],
  ["card", "card grouping", "html", () => ({ subject: "Card", html: "<p>Tarjeta: 3566.0039.1826.4056</p>", attachments: [] })],
  ["card", "card grouping", "text", () => ({ subject: "Card", text: "Vence 09/28 · 4388 5739 1826 4052", attachments: [] })],
  ["", "card grouping", "text", () => ({ subject: "Orders", text: "Orders 4152 3839 1826 40 51 and 5486-0139-1826-4058 were cancelled (ref 2026/11/30).", attachments: [] })],
  ["", "card grouping", "text", () => ({ subject: "ISBN", text: "ISBN 978-3-16-148410-0, EAN 4006381333931, parcel 9400 1000 0000 0000 0000 00", attachments: [] })],
  // Labels in the languages of customers and partners.
  ["passport", "language", "text", () => ({ subject: "Reserva", text: "Datos del huésped:\nPasaporte: XDA482913\nLlegada 14/02", attachments: [] })],
  ["passport", "language", "text", () => ({ subject: "Rezervasyon", text: "Misafir pasaport no: U23918478", attachments: [] })],
  ["passport", "language", "text", () => ({ subject: "Visum", text: "Reisepass-Nr.: C4F7G2K92 (gültig bis 2031)", attachments: [] })],
  ["secret", "language", "text", () => ({ subject: "Accès", text: "Identifiant : jdupont\nMot de passe : Lune-Bleue-2027!", attachments: [] })],
  ["secret", "language", "text", () => ({ subject: "Zugang", text: "Benutzer: m.keller\nKennwort: Alpen#Blick42", attachments: [] })],
  ["secret", "language", "text", () => ({ subject: "Acceso", text: "usuario: lgarcia / contraseña: Sevilla.2027x", attachments: [] })],
  ["secret", "language", "text", () => ({ subject: "Erişim", text: "Kullanıcı adı: kaya\nŞifre: Bogaz_Kopru9", attachments: [] })],
  ["secret", "language", "server.env", () => attach("server.env", "APP_ENV=production\nROOT_PASSWORD=Tq8#vLp2Wz\nDB_HOST=10.0.0.5\n")],
  ["secret", "language", "compose.yml", () => attach("compose.yml", "services:\n  db:\n    environment:\n      MYSQL_ROOT_PASSWORD: n7Rk2pQx9s\n")],
  ["voen", "language", "text", () => ({ subject: "Rechnung", text: "Steuernummer des Lieferanten: 2304918572", attachments: [] })],
  ["voen", "language", "text", () => ({ subject: "Fatura", text: "Vergi kimlik numarası: 1503 847 261", attachments: [] })],
  ["voen", "language", "text", () => ({ subject: "Factura", text: "NIF del proveedor: 9900112231", attachments: [] })],
  ["fin", "language", "text", () => ({ subject: "Персонал", text: "Персональный идентификационный номер: 2QX8VTL", attachments: [] })],
  ["confidential", "language", "subject", () => ({ subject: "[Confidencial] Plan de ventas 2027", text: "Adjunto el plan.", attachments: [] })],
  ["confidential", "language", "text", () => ({ subject: "Not", text: "GİZLİ\nYönetim kurulu kararları", attachments: [] })],
  ["confidential", "language", "text", () => ({ subject: "Note", text: "Diffusion restreinte\nCompte rendu du comité", attachments: [] })],
  ["", "language", "text", () => ({ subject: "Hilfe", text: "Ich habe mein Passwort vergessen, bitte zurücksetzen.\nDie Steuernummer beantrage ich nächste Woche.", attachments: [] })],
  ["", "language", "text", () => ({ subject: "Ayuda", text: "¿Olvidó su contraseña? Renueve su pasaporte en la oficina, cita 2027-01-15 a las 10:30.", attachments: [] })],
  ["", "language", "server.env", () => attach("server.env", "ROOT_PASSWORD=${ROOT_PASSWORD}\nDB_PASS=changeme\nPASSWORD_MIN_LENGTH=12\n")],
  ["", "language", "text", () => ({ subject: "Bilgi", text: "Gizlilik politikamız güncellendi. Şifre sıfırlama bağlantısı e-postanızda.", attachments: [] })],
  // Encodings a sender picks in a Save dialog.
  ["card", "encoding", "kartlar.txt", () => attach("kartlar.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Kart nömrəsi: 2202 2039 1826 4054\r\n", "utf16le")]))],
  ["passport", "encoding", "spisok.txt", () => attach("spisok.txt", Buffer.from("Паспорт: 45 11 204918\r\n", "utf16le").swap16())],
  ["", "encoding", "notes.txt", () => attach("notes.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("Meeting notes: call 4012 88 on 2026-12-03\r\n", "utf16le")]))],
];

/** Small, light print in JPEG strips (read by OCR after ocr-prepare.ts), and a strip with nothing sensitive. */
async function smallPrint(): Promise<PlacedSample[]> {
  const strips = [
    { text: "key id AKIAW4NQ7ZRT2XKP5M3B", size: 13, color: "#999", type: "secret" },
    { text: "IBAN NO93 8601 1117 947", size: 12, color: "#aaa", type: "iban" },
    { text: "token ghp_R7kQ2mX9pL4vN8sT3wZ6yB1cD5fG0hJ2aE4u", size: 11, color: "#888", width: 420, type: "secret" },
    { text: "order 2026-11-30 shipped, 3 items", size: 12, color: "#aaa", type: "" },
  ];
  const jpegs = await renderJpegStrips(strips);
  return strips.map((s, i) => ({
    name: `${s.type || "negative"} in small print image ${i}`,
    place: "picture small print",
    content: { subject: "Screenshot", attachments: [{ filename: `crop-${i}.jpg`, content: jpegs[i] }] },
    expected: s.type ? [`${s.type} ocr:crop-${i}.jpg`] : [],
  }));
}

export async function layoutCorpus(): Promise<PlacedSample[]> {
  return [...(await documentSamples()), ...(await smallPrint())];
}

function documentSamples(): Promise<PlacedSample[]> {
  return Promise.all(
    cases.map(async ([types, place, where, build], i) => ({
      name: `${types || "negative"} in ${place} #${i}`,
      place,
      content: await build(),
      expected: types ? types.split(" ").map((t) => `${t} ${at(where)}`) : [],
    })),
  );
}
