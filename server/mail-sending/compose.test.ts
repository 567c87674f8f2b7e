// The relay signs with nodemailer's DKIM parts put together for a message in memory (compose.ts,
// dkimSign), not with its streaming DKIM class: the bytes must be the class's, signature included
// (RSA PKCS#1 v1.5 signs deterministically), for composed messages and for the shapes a stored
// message or a hook could give: bare LF, trailing spaces and blank lines, folded and unsigned
// headers, no body at all, a body of many chunks.
import { randomBytes } from "node:crypto";
import { dkimVerify } from "mailauth";
import DKIM from "nodemailer/lib/dkim";
import { beforeAll, describe, expect, it } from "vitest";
import { generateDkimKeys } from "../maildomains/dkim.ts";
import { composeMessage, dkimSign, importedKey, SIGNED_HEADERS } from "./compose.ts";
import type { StoredMessage } from "./message-repository.ts";

const DOMAIN = "sign.test";
let keys: Awaited<ReturnType<typeof generateDkimKeys>>;
beforeAll(async () => {
  keys = await generateDkimKeys();
});
const key = () => ({ domainName: DOMAIN, keySelector: "platform", privateKey: keys.privateKeyPem });

/** What nodemailer's DKIM class makes of the same message with the same key and header list. */
function signedByTheClass(raw: Buffer): Promise<Buffer> {
  const output = new DKIM({ ...key(), privateKey: importedKey(keys.privateKeyPem) as never, headerFieldNames: SIGNED_HEADERS }).sign(raw);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    output.on("data", (c: Buffer) => chunks.push(c));
    output.on("end", () => resolve(Buffer.concat(chunks)));
    output.on("error", reject);
  });
}

const stored = (over: Partial<StoredMessage> = {}): StoredMessage => ({
  id: "msg_sign1", projectId: "prj_1", status: "sent", from: `news@${DOMAIN}`, to: "bob@dest.test", cc: [], bcc: [], replyTo: [],
  subject: "Hello", text: "Hi", html: undefined, headers: {}, stream: "transactional", scope: "", track: false, unsubscribe: false,
  rfcMessageId: `msg_sign1@${DOMAIN}`, returnPath: `bounces@${DOMAIN}`, sendAt: null, relay: null, relayMessageId: null, opens: 0, clicks: 0,
  createdAt: Date.UTC(2026, 10, 26, 6), lastError: null, attachments: [], ...over,
} as StoredMessage);

const HEAD = `From: news@${DOMAIN}\r\nTo: bob@dest.test\r\nSubject: Shapes\r\nDate: Thu, 26 Nov 2026 06:00:00 +0000\r\nMessage-ID: <shapes@${DOMAIN}>\r\n`;

describe("dkimSign", () => {
  it("gives the DKIM class's bytes for composed messages", async () => {
    const messages = [
      stored(),
      stored({ text: "Hello Bob", html: "<p>Hello <b>Bob</b></p>", cc: ["carol@dest.test"], replyTo: ["help@sign.test"] }),
      stored({ subject: "Grüße aus Köln — 🎉 ".repeat(6), text: "Zeile eins  \n\n\nZeile zwei\t \n\n\n", headers: { "X-Order": "A-17", "List-Unsubscribe": "<https://u.example/x>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" } }),
      stored({ html: "<p>report</p>", attachments: [{ filename: "report.pdf", contentType: "application/pdf", content: randomBytes(200_000) }] }),
    ];
    for (const m of messages) {
      const raw = await composeMessage(m);
      const signed = await dkimSign(raw, key());
      expect(signed.equals(await signedByTheClass(raw))).toBe(true);
      expect(signed.subarray(signed.length - raw.length).equals(raw)).toBe(true);
    }
  });

  it("gives the DKIM class's bytes for raw shapes, and what it signs verifies", async () => {
    const shapes = [
      `${HEAD}\r\nbody\r\n`,
      `${HEAD.replaceAll("\r\n", "\n")}\nbare LF  body \t\n\n\n`,
      `${HEAD}X-Folded: one\r\n two\r\n\tthree\r\nX-Unsigned: yes\r\n\r\ntrailing blank lines\r\n\r\n\r\n\r\n`,
      `${HEAD}\r\n`,
      HEAD,
      `${HEAD}\r\n${"a long line of text  with   runs of spaces ".repeat(4000)}\r\nend\r\n`,
      `${HEAD}\r\nno final line break`,
    ];
    for (const shape of shapes) {
      const raw = Buffer.from(shape);
      const signed = await dkimSign(raw, key());
      expect(signed.equals(await signedByTheClass(raw))).toBe(true);
    }
    const resolver = async (name: string, rrtype: string) => {
      if (name === `platform._domainkey.${DOMAIN}` && rrtype === "TXT") return [[`v=DKIM1; k=rsa; p=${keys.publicKeyBase64}`]];
      throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: "ENOTFOUND" });
    };
    for (const shape of [shapes[0], shapes[2], shapes[5]]) {
      const result = await dkimVerify(await dkimSign(Buffer.from(shape), key()), { resolver });
      expect(result.results[0].status.result).toBe("pass");
    }
  });
});
