// The ways the card probe of issue 31 hid a Luhn-valid card number from block mode, as messages:
// [name, message, where the card must be reported]. evasion.test.ts scans them, send-evasion.test.ts
// sends them through POST /v1/mail/send in block mode.
import { gzipSync } from "node:zlib";
import type { OutgoingContent } from "../dlp-port.ts";
import * as doc from "./documents.ts";

const CARD = "4111111111111111";
const spaced = (sep: string) => CARD.match(/.{4}/g)!.join(sep);
const between = (c: string) => [...CARD].join(c);
/** The card's digits in the script whose zero is `zero`. */
const digitsIn = (zero: number, s = CARD) => s.replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)));

/** A forwarded message as a client attaches it: its body in base64. */
function forwarded(body: string, extra = ""): Buffer {
  return Buffer.from(
    [`From: Ann <ann@example.org>`, `To: Bob <bob@example.org>`, `Subject: Fwd: details`, `Date: Tue, 24 Nov 2026 10:00:00 +0000`, `MIME-Version: 1.0`, extra, `Content-Type: text/plain; charset=utf-8`, `Content-Transfer-Encoding: base64`, ``, Buffer.from(body).toString("base64").replace(/.{76}/g, "$&\r\n")].filter((l, i) => l !== "" || i === 8).join("\r\n"),
  );
}

const text = (t: string): OutgoingContent => ({ subject: "Details", text: `Hi,\n${t}\nThanks`, attachments: [] });

export const evasions: [string, () => OutgoingContent | Promise<OutgoingContent>, string][] = [
  ["zero-width spaces (U+200B) between digits", () => text(`card ${between("\u200b")}`), "text"],
  ["zero-width joiners (U+200D) between digits", () => text(`card ${between("\u200d")}`), "text"],
  ["word joiners (U+2060) between groups", () => text(`card ${spaced("\u2060")}`), "text"],
  ["soft hyphens between groups", () => text(`card ${spaced("\u00ad")}`), "text"],
  ["NBSP as the separator", () => text(`card ${spaced("\u00a0")}`), "text"],
  ["narrow NBSP and figure space as separators", () => text(`card ${CARD.slice(0, 4)}\u202f${CARD.slice(4, 8)}\u2007${CARD.slice(8, 12)}\u202f${CARD.slice(12)}`), "text"],
  ["full-width digits", () => text(`card ${digitsIn(0xff10)}`), "text"],
  ["Arabic-Indic digits", () => text(`card ${digitsIn(0x660)}`), "text"],
  ["Extended Arabic-Indic (Persian) digits", () => text(`card ${digitsIn(0x6f0)}`), "text"],
  ["Devanagari digits in groups", () => text(`card ${digitsIn(0x966, spaced(" "))}`), "text"],
  ["zero-width characters in the subject", () => ({ subject: `Card ${between("\u200b")}`, attachments: [] }), "subject"],
  ["the number in a custom header", () => ({ subject: "Hello", text: "Hi", headers: { "X-Customer-Ref": CARD }, attachments: [] }), "header:X-Customer-Ref"],
  ["the number in an encoded custom header", () => ({ subject: "Hello", text: "Hi", headers: { "X-Note": `=?utf-8?B?${Buffer.from(`card ${CARD}`).toString("base64")}?=` }, attachments: [] }), "header:X-Note"],
  ["the number in an attachment's file name", () => ({ subject: "Hello", attachments: [{ filename: `card-${CARD}.txt`, content: Buffer.from("see the name") }] }), "attachment:card-4111 **** **** 1111.txt"],
  ["a .gz attachment", () => ({ subject: "Hello", attachments: [{ filename: "cards.txt.gz", content: gzipSync(`card ${CARD}\n`) }] }), "attachment:cards.txt.gz"],
  ["a gzip without a .gz name", () => ({ subject: "Hello", attachments: [{ filename: "export.dat", content: gzipSync(`card ${CARD}\n`) }] }), "attachment:export.dat"],
  ["a forwarded .eml, body in base64", () => ({ subject: "Fwd", attachments: [{ filename: "forward.eml", content: forwarded(`Please charge ${CARD} today.`) }] }), "attachment:forward.eml"],
  ["a message/rfc822 attachment without a name that says so", () => ({ subject: "Fwd", attachments: [{ filename: "original", contentType: "message/rfc822", content: forwarded(`Card: ${spaced(" ")}`) }] }), "attachment:original"],
  ["an attached message with a custom header", () => ({ subject: "Fwd", attachments: [{ filename: "fwd.eml", content: forwarded("nothing here", `X-Card: ${CARD}`) }] }), "attachment:fwd.eml"],
  ["a zip entry's name", () => ({ subject: "Files", attachments: [{ filename: "files.zip", content: doc.storedZip([{ name: `${CARD}.txt`, data: "x" }]) }] }), "attachment:files.zip/4111 **** **** 1111.txt"],
  ["an HTML comment", () => ({ subject: "Hi", html: `<p>Hello</p><!-- card ${CARD} -->`, attachments: [] }), "html"],
  ["a hidden input's value", () => ({ subject: "Hi", html: `<form><input type="hidden" name="pan" value="${CARD}"></form>`, attachments: [] }), "html"],
  ["an image's alt and a link's title", () => ({ subject: "Hi", html: `<a href="#" title="card ${spaced(" ")}">x</a>`, attachments: [] }), "html"],
  ["text hidden with CSS", () => ({ subject: "Hi", html: `<p>Hi</p><div style="display:none;font-size:0">${CARD}</div>`, attachments: [] }), "html"],
  // Issue 40: the neighbours of each kind. Grouping and separators are the sender's choice.
  ["digits regrouped (4-4-4-2-2)", () => text("card 4111 1111 1111 11 11"), "text"],
  ["digits regrouped with zero-width spaces between", () => text(`card 4111\u200b 1111 11\u200b11 1111 1\u200b111`), "text"],
  ["one digit a group", () => text(`card ${between(" ")}`), "text"],
  ["dots, slashes, underscores, en dashes as separators", () => text(`a ${spaced(".")} b ${spaced("/")} c ${spaced("_")} d ${spaced("\u2013")}`), "text"],
  ["two spaces or a tab between groups", () => text(`card ${spaced("  ")} or ${spaced("\t")}`), "text"],
  ["digits put in front of the number", () => text(`card 00 ${spaced(" ")}`), "text"],
  // Encodings: the escapes of RTF, UTF-16 text.
  ["RTF no-break spaces between groups", () => ({ subject: "Doc", attachments: [{ filename: "card.rtf", content: doc.rtf([`card ${spaced("\\~")}`], { raw: true }) }] }), "attachment:card.rtf"],
  ["RTF formatting groups inside the number", () => ({ subject: "Doc", attachments: [{ filename: "card.rtf", content: doc.rtf([`card {\\b 41}11{\\i 1111}1111{\\ul 1}111`], { raw: true }) }] }), "attachment:card.rtf"],
  ["RTF digits as \\'hh and \\uN escapes", () => ({ subject: "Doc", attachments: [{ filename: "card.rtf", content: doc.rtf([`card ${[...CARD].map((d, i) => (i % 2 ? `\\'3${d}` : `\\u${48 + Number(d)}?`)).join("")}`], { raw: true }) }] }), "attachment:card.rtf"],
  ["an RTF file named .doc", () => ({ subject: "Doc", attachments: [{ filename: "letter.doc", content: doc.rtf([`Card ${spaced(" ")}`]) }] }), "attachment:letter.doc"],
  ["a UTF-16 text file", () => ({ subject: "Doc", attachments: [{ filename: "cards.txt", content: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`card ${CARD}`, "utf16le")]) }] }), "attachment:cards.txt"],
  // Containers: tables of every document format, a PDF drawn out of order.
  ["a Word table, the label only in its header", async () => ({ subject: "Doc", attachments: [{ filename: "t.docx", content: await doc.docxTables([], [[["Holder", "Card"], ["A. B.", spaced(" ")]]]) }] }), "attachment:t.docx"],
  ["a table in a slide's speaker notes", async () => ({ subject: "Doc", attachments: [{ filename: "t.pptx", content: await doc.pptxTable("Deck", undefined, [], [["Holder", "Card"], ["A. B.", CARD]]) }] }), "attachment:t.pptx"],
  ["an ODF text's table", async () => ({ subject: "Doc", attachments: [{ filename: "t.odt", content: await doc.odt([], [[["Holder", "Card"], ["A. B.", CARD]]]) }] }), "attachment:t.odt"],
  ["a PDF whose groups are drawn right to left", async () => ({ subject: "Doc", attachments: [{ filename: "t.pdf", content: await doc.pdfAt([[3, 2, 1, 0].map((g) => ({ text: CARD.slice(g * 4, g * 4 + 4), x: 100 + g * 26, y: 700 }))]) }] }), "attachment:t.pdf"],
];
