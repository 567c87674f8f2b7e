// parseForIndex reads a one-part plain-text message's header with mailparser and decodes the body
// itself; what the store makes of it must be exactly what mailparser's whole parse gives. Random
// messages (header fields with encoded words and 8-bit text, every content type, charset and
// transfer encoding that may or may not take the short path, bodies with bare CR and LF, invalid
// UTF-8 and whitespace runs) are stored both ways and compared.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseForIndex, parseMessage, plainTextBodyStart, preview, toStoredMessage } from "./parse-message.ts";

async function bothWays(raw: Buffer) {
  const full = toStoredMessage(raw, await parseMessage(raw), 0, ["rcpt@inbound.test"]);
  const indexed = toStoredMessage(raw, await parseForIndex(raw), 0, ["rcpt@inbound.test"]);
  return { full, indexed };
}

const crlf = (lines: string[]) => Buffer.from(lines.join("\r\n"), "utf8");

const simple: Record<string, Buffer> = {
  "no Content-Type": crlf(["From: A <a@sender.test>", "To: b@inbound.test", "Subject: hi", "", "line one", "line two", ""]),
  "text/plain; charset=utf-8, 8bit, folded and encoded headers": crlf([
    "From: =?utf-8?Q?J=C3=BCrgen?= <j@sender.test>",
    "To: b@inbound.test,",
    "  \"Carol, C.\" <c@inbound.test>",
    "Cc: d@inbound.test",
    "Subject: =?utf-8?B?w6ljb2xl?= and more",
    "Message-ID: <m1@sender.test>",
    "In-Reply-To: <m0@sender.test>",
    "References: <a@x> <b@y>",
    "Content-Type: text/plain;",
    "\tcharset=\"UTF-8\"",
    "Content-Transfer-Encoding: 8bit",
    "",
    "Grüße  aus   Köln\tund\r\n\r\nmehr\r\n",
  ]),
  "us-ascii, 7bit, empty body": crlf(["From: a@sender.test", "Content-Type: text/plain; charset=us-ascii", "Content-Transfer-Encoding: 7bit", "", ""]),
};

describe("parseForIndex", () => {
  for (const [name, raw] of Object.entries(simple)) {
    it(`takes the short path and stores what mailparser's whole parse would: ${name}`, async () => {
      expect(plainTextBodyStart(raw)).toBeGreaterThan(0);
      const { full, indexed } = await bothWays(raw);
      expect(indexed).toEqual(full);
    });
  }

  const headerText = fc.string({ unit: fc.constantFrom("a", "Z", " ", "é", "ü", ",", "\"", "<", ">", "@", "=?utf-8?B?w6k=?=", "=?iso-8859-1?Q?=E9?=", ";", "\t") , maxLength: 30 });
  const contentType = fc.constantFrom(
    undefined,
    "text/plain",
    "text/plain; charset=utf-8",
    "TEXT/PLAIN; CHARSET=\"US-ASCII\"",
    "text/plain;\r\n charset=utf-8",
    "text/plain; charset=iso-8859-1",
    "text/plain; charset=utf-8; format=flowed",
    "text/plain; name=\"notes.txt\"",
    "text/html; charset=utf-8",
    "application/octet-stream",
    "multipart/mixed; boundary=b1",
  );
  const encoding = fc.constantFrom(undefined, "7bit", "8bit", "8BIT", "binary", "quoted-printable", "base64");
  const disposition = fc.constantFrom(undefined, undefined, undefined, "attachment; filename=a.txt", "inline");
  const body = fc
    .array(fc.constantFrom("word", " ", "  ", "\t", "\r\n", "\n", "\r", "é", "\u00a0", "=3D", "=\r\n", "--b1\r\n", "\r\n--b1--\r\n", "Zm9v", "\xff", "."), { maxLength: 400 })
    .map((parts) => parts.join(""));

  it("stores any message exactly as mailparser's whole parse would", async () => {
    await fc.assert(
      fc.asyncProperty(headerText, headerText, contentType, encoding, disposition, body, fc.boolean(), async (subject, name, type, cte, disp, text, latin1Body) => {
        const head = [`From: ${name} <a@sender.test>`, `To: ${name} <b@inbound.test>`, `Subject: ${subject}`, "Message-ID: <x@sender.test>"];
        if (type) head.push(`Content-Type: ${type}`);
        if (cte) head.push(`Content-Transfer-Encoding: ${cte}`);
        if (disp) head.push(`Content-Disposition: ${disp}`);
        // The body as UTF-8 bytes, or each character as one byte (invalid UTF-8 for é and \xff).
        const raw = Buffer.concat([Buffer.from(head.join("\r\n") + "\r\n\r\n", "utf8"), Buffer.from(text, latin1Body ? "latin1" : "utf8")]);
        const { full, indexed } = await bothWays(raw);
        expect(indexed).toEqual(full);
      }),
      { numRuns: 400 },
    );
  });

  it("declines what it does not decode itself", () => {
    for (const head of [
      "Content-Type: text/plain; charset=iso-8859-1",
      "Content-Type: text/plain; format=flowed",
      "Content-Type: text/html",
      "Content-Transfer-Encoding: quoted-printable",
      "Content-Transfer-Encoding: base64",
      "Content-Disposition: inline",
      "Content-Type: text/plain\r\nContent-Type: text/html",
      "Subject: bare\nLF",
    ]) {
      expect(plainTextBodyStart(Buffer.from(`From: a@sender.test\r\n${head}\r\n\r\nbody\r\n`))).toBe(-1);
    }
    expect(plainTextBodyStart(Buffer.from("From: a@sender.test\n\nbody\n"))).toBe(-1);
  });
});

describe("preview", () => {
  it("is the text's first 200 characters with whitespace runs made one space, trimmed", () => {
    const text = fc
      .array(fc.oneof(fc.constantFrom(" ", "\r\n", "\t\t", "\u00a0", "\u2028", "ab", "😀"), fc.string({ unit: fc.constantFrom(" ", "x"), maxLength: 900 })), { maxLength: 60 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (t) => {
        expect(preview(t)).toBe(t.replace(/\s+/g, " ").trim().slice(0, 200));
      }),
      { numRuns: 3000 },
    );
  });
});
