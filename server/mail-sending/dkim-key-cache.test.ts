// The relay imports each DKIM private key once (compose.ts, importedKey). The cache must never
// sign with a stale key: a domain removed and added again gets a new key under the same domain
// name and selector, and its next message must carry a signature of the new key only.
import { dkimVerify } from "mailauth";
import { describe, expect, it } from "vitest";
import { generateDkimKeys } from "../maildomains/dkim.ts";
import { dkimSign, importedKey } from "./compose.ts";

const DOMAIN = "rotate.test";
const message = (n: number) =>
  Buffer.from(`From: news@${DOMAIN}\r\nTo: bob@dest.test\r\nSubject: Rotation ${n}\r\nDate: Thu, 26 Nov 2026 06:00:00 +0000\r\nMessage-ID: <${n}@${DOMAIN}>\r\n\r\nHello ${n}\r\n`);

/** mailauth's own resolver hook answering the one TXT record a verifier asks for: the key published now. */
const publishing = (publicKeyBase64: string) => async (name: string, rrtype: string) => {
  if (name === `platform._domainkey.${DOMAIN}` && rrtype === "TXT") return [[`v=DKIM1; k=rsa; p=${publicKeyBase64}`]];
  throw Object.assign(new Error(`no ${rrtype} for ${name}`), { code: "ENOTFOUND" });
};

const verdict = async (raw: Buffer, publicKey: string) => (await dkimVerify(raw, { resolver: publishing(publicKey) })).results[0].status.result;

describe("DKIM keys imported once per key", () => {
  it("signs with the key it is given: after a new key under the same selector, the new one only", async () => {
    const [a, b] = await Promise.all([generateDkimKeys(), generateDkimKeys()]);
    const sign = (n: number, pem: string) => dkimSign(message(n), { domainName: DOMAIN, keySelector: "platform", privateKey: pem });
    const first = await sign(1, a.privateKeyPem);
    expect(await verdict(first, a.publicKeyBase64)).toBe("pass");
    // The domain's key changed (removed and added again): same name, same selector.
    const second = await sign(2, b.privateKeyPem);
    expect(await verdict(second, b.publicKeyBase64)).toBe("pass");
    expect(await verdict(second, a.publicKeyBase64)).toBe("fail");
    // Both imported now: each PEM still gets its own key.
    const third = await sign(3, a.privateKeyPem);
    expect(await verdict(third, a.publicKeyBase64)).toBe("pass");
    expect(await verdict(third, b.publicKeyBase64)).toBe("fail");
  });

  it("imports a PEM once, keeps a bounded number, and refuses a broken one", async () => {
    const { privateKeyPem } = await generateDkimKeys();
    expect(importedKey(privateKeyPem)).toBe(importedKey(privateKeyPem));
    // 1,000 other spellings of a PEM (trailing newlines) push the first one out: imported anew.
    const first = importedKey(privateKeyPem);
    for (let i = 1; i <= 1000; i++) importedKey(privateKeyPem + "\n".repeat(i));
    expect(importedKey(privateKeyPem)).not.toBe(first);
    expect(importedKey(privateKeyPem).export({ type: "pkcs8", format: "pem" })).toBe(first.export({ type: "pkcs8", format: "pem" }));
    expect(() => importedKey("-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n")).toThrow();
  });
});
