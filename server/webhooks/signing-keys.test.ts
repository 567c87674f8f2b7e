// The opened-key cache signs exactly as the secret itself does, follows a changed secret at once,
// and stays within its bound.
import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signature } from "../adapters/webhook-sender.ts";
import { standardSignature } from "../adapters/webhook-signing.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { SigningKeys } from "./signing-keys.ts";

const box = new SecretBox(randomBytes(32));
const body = JSON.stringify({ id: "evt_1", type: "mail.delivered", data: { to: "bøb@example.org" } });

describe("SigningKeys", () => {
  it("signs byte for byte as the whsec_ string does", () => {
    const keys = new SigningKeys((s) => box.open(s));
    for (const secret of ["whsec_" + "a".repeat(43), "whsec_ünïcode-and-more", "whsec_"]) {
      expect(signature(body, keys.get(box.seal(secret)).platform)).toBe(signature(body, secret));
    }
  });

  it("opens the Standard Webhooks key as the base64 decoding of the text after whsec_, in either alphabet", () => {
    const keys = new SigningKeys((s) => box.open(s));
    const bytes = randomBytes(24);
    for (const secret of [`whsec_${bytes.toString("base64")}`, `whsec_${bytes.toString("base64url")}`]) {
      const standard = keys.get(box.seal(secret)).standard;
      expect(standard.export().equals(bytes)).toBe(true);
      expect(standardSignature("evt_1", 1700000000, body, standard)).toBe(`v1,${createHmac("sha256", bytes).update(`evt_1.1700000000.${body}`).digest("base64")}`);
    }
  });

  it("opens a sealed secret once, and a new secret (a new sealed value) is opened and used at once", () => {
    const opened: string[] = [];
    const keys = new SigningKeys((s) => (opened.push(s), box.open(s)));
    const first = box.seal("whsec_first");
    const second = box.seal("whsec_second");
    expect(signature(body, keys.get(first).platform)).toBe(signature(body, "whsec_first"));
    expect(signature(body, keys.get(first).platform)).toBe(signature(body, "whsec_first"));
    expect(signature(body, keys.get(second).platform)).toBe(signature(body, "whsec_second"));
    expect(opened).toEqual([first, second]);
  });

  it("keeps at most its bound, dropping the oldest", () => {
    const opened: string[] = [];
    const keys = new SigningKeys((s) => (opened.push(s), box.open(s)), 3);
    const sealed = ["a", "b", "c", "d"].map((x) => box.seal(`whsec_${x}`));
    for (const s of sealed) keys.get(s);
    expect(keys.size).toBe(3);
    keys.get(sealed[3]);
    keys.get(sealed[0]); // dropped, opened again
    expect(opened).toEqual([...sealed, sealed[0]]);
    expect(signature(body, keys.get(sealed[0]).platform)).toBe(signature(body, "whsec_a"));
  });

  it("a secret that cannot be opened is an error, not a cached key", () => {
    const keys = new SigningKeys((s) => box.open(s));
    expect(() => keys.get("v1.bad.bad.bad")).toThrow();
    expect(keys.size).toBe(0);
  });
});
