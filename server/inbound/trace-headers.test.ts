// mailauth reads only the header section of an unsigned message (authenticationInput): these
// tests hold its verdict to the one it gives on the whole message, and show that a signed
// message still has its body hashed (a changed body fails DKIM).
import { generateKeyPairSync } from "node:crypto";
import { authenticate, dkimSign } from "mailauth";
import { describe, expect, it } from "vitest";
import { authenticationInput, traceHeaders } from "./trace-headers.ts";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const publicKeyBase64 = publicKey.export({ type: "spki", format: "der" }).toString("base64");

const records: Record<string, string[][]> = {
  "sender.test": [["v=spf1 ip4:192.0.2.10 -all"]],
  "_dmarc.sender.test": [["v=DMARC1; p=reject"]],
  "sel._domainkey.sender.test": [[`v=DKIM1; k=rsa; p=${publicKeyBase64}`]],
  "softfail.test": [["v=spf1 ~all"]],
};

async function resolve(name: string, rrtype: string): Promise<string[][]> {
  const answer = rrtype === "TXT" ? records[name.toLowerCase()] : undefined;
  if (answer) return answer;
  throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: "ENOTFOUND" });
}

const body = "Lorem ipsum dolor sit amet.\r\n".repeat(300);
const unsigned: Record<string, Buffer> = {
  "CRLF, SPF and DMARC records": Buffer.from(`From: Sender <a@sender.test>\r\nTo: b@inbound.test\r\nSubject: hi\r\n\r\n${body}`),
  "bare LF": Buffer.from(`From: a@sender.test\nTo: b@inbound.test\nSubject: hi\n\n${body.replace(/\r\n/g, "\n")}`),
  "no body": Buffer.from("From: a@sender.test\r\nSubject: empty\r\n\r\n"),
  "no empty line at all": Buffer.from("From: a@sender.test\r\nSubject: header only"),
  "softfail domain, folded From": Buffer.from(`From:\r\n Someone\r\n <x@softfail.test>\r\nSubject: x\r\n\r\n${body}`),
  "unknown domain, a forged result kept": Buffer.from(`Authentication-Results: elsewhere.test; dkim=pass\r\nFrom: x@nowhere.test\r\n\r\n${body}`),
  "a DKIM-Signature only in the body": Buffer.from(`From: a@sender.test\r\n\r\nDKIM-Signature: v=1; d=sender.test\r\n${body}`),
};

const envelopes = [
  { ip: "192.0.2.10", helo: "mail.sender.test", sender: "a@sender.test" },
  { ip: "198.51.100.7", helo: "elsewhere", sender: "a@sender.test" },
  { ip: "198.51.100.7", helo: "elsewhere", sender: "" },
];

async function verdict(raw: Buffer, envelope: (typeof envelopes)[number]): Promise<string> {
  const result = await authenticate(raw, { ...envelope, mta: "mx.platform.test", resolver: resolve as never, disableBimi: true });
  return result.headers;
}

describe("authenticationInput", () => {
  for (const [name, raw] of Object.entries(unsigned)) {
    it(`gives mailauth's verdict on the whole message with less to read: ${name}`, async () => {
      const input = authenticationInput(raw);
      if (name === "no body" || name === "no empty line at all") expect(input.equals(raw)).toBe(true);
      else expect(input.length).toBeLessThan(raw.length);
      for (const envelope of envelopes) expect(await verdict(input, envelope)).toBe(await verdict(raw, envelope));
    });
  }

  it("keeps the body of a message carrying a signature, so its body hash is checked", async () => {
    const message = Buffer.from(`From: Sender <a@sender.test>\r\nTo: b@inbound.test\r\nSubject: signed\r\n\r\n${body}`);
    const key = { signingDomain: "sender.test", selector: "sel", privateKey: privateKeyPem };
    const { signatures } = await dkimSign(message, { ...key, signatureData: [key] });
    expect(signatures).toMatch(/^DKIM-Signature: /);
    const signed = Buffer.concat([Buffer.from(signatures), message]);
    expect(authenticationInput(signed)).toBe(signed);
    const envelope = { remoteAddress: "198.51.100.7", helo: "elsewhere", mailFrom: "a@sender.test", recipients: ["b@inbound.test"], secure: false, sessionId: "s1", receivedAt: new Date(0) };
    const good = (await traceHeaders(signed, envelope, "mx.platform.test", resolve)).raw.toString();
    expect(good).toMatch(/dkim=pass/);
    expect(good).toMatch(/dmarc=pass/);
    const tampered = Buffer.from(signed.toString().replace("Lorem", "Lorem!"));
    const bad = (await traceHeaders(tampered, envelope, "mx.platform.test", resolve)).raw.toString();
    expect(bad).toMatch(/dkim=neutral \(body hash did not verify\)|dkim=fail/);
    expect(bad).toMatch(/dmarc=fail/);
  });
});
