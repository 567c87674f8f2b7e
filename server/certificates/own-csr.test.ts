// The checks of a CSR the caller brings, with the exact problem each defect gets, both sides of
// every boundary (RSA 2047/2048 and 8192/8200 bits, P-384 versus P-521), and the PEM framing a
// client may send (CRLF, trailing blank lines) versus text around the request. The HTTP side (400
// on body.csr, nothing stored) is in certificates.test.ts.
import { describe, expect, it } from "vitest";
import { ownCsrProblem } from "./own-csr.ts";
import * as csr from "./test/csrs.ts";

const framing = "must be one PEM certificate request (-----BEGIN CERTIFICATE REQUEST----- ... -----END CERTIFICATE REQUEST-----)";
const names = (got: string, want: string) => `names (${got}) must equal body.domains (${want})`;

describe("PEM framing", () => {
  it("accepts LF and CRLF line ends, with or without trailing line ends", async () => {
    const lf = csr.P384.trimEnd();
    for (const pem of [lf, `${lf}\n`, `${lf}\n\n`, `${lf}\r\n`, lf.replace(/\n/g, "\r\n")]) {
      expect(await ownCsrProblem(pem, ["csr.test"])).toBeUndefined();
    }
  });

  it("refuses text before or after the request, two requests, another label, an empty text, or a BEGIN line run into the base64", async () => {
    const pem = csr.P384.trimEnd();
    for (const bad of [`x${pem}`, ` ${pem}`, `${pem}\nx`, `${pem}\n${pem}`, pem.replace(/REQUEST/g, ""), "hello", "", pem.replace(/\n[^\n]*\n-----END/, "\n-----END").replace(/-----\n/, "-----")]) {
      expect(await ownCsrProblem(bad, ["csr.test"])).toBe(framing);
    }
  });

  it("refuses characters that are not base64 inside the frame", async () => {
    const pem = csr.P384.replace(/\n(.)/, "\n!$1");
    expect(await ownCsrProblem(pem, ["csr.test"])).toBe(framing);
  });

  it("refuses base64 that is not a PKCS#10 request", async () => {
    const junk = "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n";
    expect(await ownCsrProblem(junk, ["csr.test"])).toBe("is not a readable PKCS#10 certificate request");
  });
});

describe("proof of the key", () => {
  it("refuses a request whose signature does not verify with its own key", async () => {
    const lines = csr.P384.trim().split("\n");
    const der = Buffer.from(lines.slice(1, -1).join(""), "base64");
    der[der.length - 3] ^= 0x01; // inside the signature
    const tampered = `${lines[0]}\n${der.toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n${lines.at(-1)}\n`;
    expect(await ownCsrProblem(tampered, ["csr.test"])).toBe("has a signature that does not verify with its own public key");
  });

  it("refuses a request whose signature cannot be checked at all (secp256k1, DSA): no proof either", async () => {
    expect(await ownCsrProblem(csr.K256, ["csr.test"])).toBe("has a signature that does not verify with its own public key");
    expect(await ownCsrProblem(csr.DSA, ["csr.test"])).toBe("has a signature that does not verify with its own public key");
  });
});

describe("key strength", () => {
  it("RSA: 2048 and 8192 bits are accepted, 2047 and 8200 are not", async () => {
    expect(await ownCsrProblem(csr.RSA2048, ["csr.test"])).toBeUndefined();
    expect(await ownCsrProblem(csr.RSA8192, ["csr.test"])).toBeUndefined();
    expect(await ownCsrProblem(csr.RSA2047, ["csr.test"])).toBe("has an RSA key of 2047 bits; 2048 to 8192 are accepted");
    expect(await ownCsrProblem(csr.RSA8200, ["csr.test"])).toBe("has an RSA key of 8200 bits; 2048 to 8192 are accepted");
  });

  it("EC: P-256 and P-384 are accepted, P-521 is not", async () => {
    expect(await ownCsrProblem(csr.P384, ["csr.test"])).toBeUndefined();
    expect(await ownCsrProblem(csr.P256_TWO_NAMES, ["www.csr.test", "api.csr.test"])).toBeUndefined();
    expect(await ownCsrProblem(csr.P521, ["csr.test"])).toBe("has an EC key on secp521r1; P-256 and P-384 are accepted");
  });

  it("other key types are refused by name", async () => {
    expect(await ownCsrProblem(csr.ED25519, ["csr.test"])).toBe("has a key of type ed25519; RSA (2048 to 8192 bits) and ECDSA P-256 or P-384 are accepted");
  });

  it("the key is judged before the names", async () => {
    expect(await ownCsrProblem(csr.RSA2047, ["other.test"])).toBe("has an RSA key of 2047 bits; 2048 to 8192 are accepted");
  });
});

describe("names", () => {
  it("the CN and the DNS names together must be exactly the order's domains, in any order and case", async () => {
    expect(await ownCsrProblem(csr.P256_TWO_NAMES, ["api.csr.test", "WWW.csr.test"])).toBeUndefined();
    expect(await ownCsrProblem(csr.UPPER, ["www.csr.test", "api.csr.test"])).toBeUndefined();
    expect(await ownCsrProblem(csr.UPPER, ["WWW.CSR.TEST", "API.CSR.TEST"])).toBeUndefined();
  });

  it("fewer, more or other names than ordered are refused, naming both sides", async () => {
    expect(await ownCsrProblem(csr.P256_TWO_NAMES, ["www.csr.test"])).toBe(names("www.csr.test, api.csr.test", "www.csr.test"));
    expect(await ownCsrProblem(csr.P384, ["csr.test", "www.csr.test"])).toBe(names("csr.test", "csr.test, www.csr.test"));
    expect(await ownCsrProblem(csr.P256_TWO_NAMES, ["www.csr.test", "mail.csr.test"])).toBe(names("www.csr.test, api.csr.test", "www.csr.test, mail.csr.test"));
    expect(await ownCsrProblem(csr.P384, ["other.test"])).toBe(names("csr.test", "other.test"));
  });

  it("a request without names says so", async () => {
    expect(await ownCsrProblem(csr.NONAMES, ["csr.test"])).toBe(names("none", "csr.test"));
  });

  it("IP addresses and e-mail addresses are refused, even beside the right DNS name", async () => {
    const only = "may name only DNS names (no IP addresses, e-mail addresses or URIs)";
    expect(await ownCsrProblem(csr.IP, ["csr.test"])).toBe(only);
    expect(await ownCsrProblem(csr.EMAIL, ["csr.test"])).toBe(only);
  });
});
