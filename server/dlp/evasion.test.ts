// A Luhn-valid card number hidden the ways a sender (or a careless export) hides it: each must be
// found, at the place a reader sees it (issue 31); what cannot be opened is reported as
// `encrypted`. send-evasion.test.ts sends the same messages through POST /v1/mail/send.
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { OutgoingContent } from "./dlp-port.ts";
import { scanMessage } from "./scanner.ts";
import { evasions } from "./test/evasions.ts";

describe("DLP finds a card number however it is hidden", () => {
  for (const [name, build, where] of evasions) {
    it(name, async () => {
      const { findings } = await scanMessage(await build());
      expect(findings.filter((f) => f.type === "card").map((f) => ({ where: f.where, masked: f.masked }))).toContainEqual({ where, masked: "4111 **** **** 1111" });
    });
  }
});

describe("what cannot be opened is reported, not passed", () => {
  const sealed: [string, OutgoingContent, string][] = [
    ["a 7z archive", { subject: "x", attachments: [{ filename: "a.7z", content: Buffer.concat([Buffer.from("377abcaf271c0004", "hex"), Buffer.alloc(64, 1)]) }] }, "attachment:a.7z"],
    ["a tar inside a gzip", { subject: "x", attachments: [{ filename: "a.tar.gz", content: gzipSync(Buffer.concat([Buffer.alloc(257), Buffer.from("ustar\u000000"), Buffer.alloc(250)])) }] }, "attachment:a.tar.gz"],
    ["an S/MIME message", { subject: "x", attachments: [{ filename: "smime.p7m", contentType: "application/pkcs7-mime", content: Buffer.from([0x30, 0x82, 1, 2, 3]) }] }, "attachment:smime.p7m"],
    ["a PGP message in the text", { subject: "x", text: "-----BEGIN PGP MESSAGE-----\nhQEMA5x\n-----END PGP MESSAGE-----", attachments: [] }, "text"],
    ["a gzip bomb", { subject: "x", attachments: [{ filename: "b.gz", content: gzipSync(Buffer.alloc(30 * 1024 * 1024)) }] }, "attachment:b.gz"],
  ];
  for (const [name, content, where] of sealed) {
    it(name, async () => {
      const { findings } = await scanMessage(content);
      expect(findings.filter((f) => f.type === "encrypted").map((f) => f.where)).toContain(where);
    });
  }
});
