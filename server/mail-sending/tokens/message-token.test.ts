import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MessageTokens } from "./message-token.ts";

const key = randomBytes(32);
const tokens = new MessageTokens(key);

describe("MessageTokens", () => {
  it("round-trips fields, is short and lowercase", () => {
    const t = tokens.sign("click", ["msg_0123456789ab", "7"]);
    expect(t).toMatch(/^msg_0123456789ab\.7\.[0-9a-z]{16}$/);
    expect(tokens.verify("click", t, 2)).toEqual(["msg_0123456789ab", "7"]);
    expect(tokens.verify("click", t.toUpperCase(), 2)).toEqual(["msg_0123456789ab", "7"]);
  });

  it.each([
    ["another purpose", (t: string) => tokens.verify("unsubscribe", t, 2)],
    ["another key", (t: string) => new MessageTokens(randomBytes(32)).verify("click", t, 2)],
    ["a changed field", (t: string) => tokens.verify("click", t.replace(".7.", ".8."), 2)],
    ["a changed mac", (t: string) => tokens.verify("click", t.slice(0, -1) + (t.endsWith("a") ? "b" : "a"), 2)],
    ["a cut mac", (t: string) => tokens.verify("click", t.slice(0, -1), 2)],
    ["another field count", (t: string) => tokens.verify("click", t, 1)],
    ["foreign characters", (t: string) => tokens.verify("click", t.replace("msg_", "msg-"), 2)],
  ])("refuses %s", (_name, check) => {
    expect(check(tokens.sign("click", ["msg_0123456789ab", "7"]))).toBeUndefined();
  });

  it("makes the MAC of the format with the raw key (tokens already in sent mail keep verifying)", () => {
    const mac = createHmac("sha256", key).update("unsubscribe\0msg_0123456789ab\0all").digest().subarray(0, 10);
    let bits = "";
    for (const b of mac) bits += b.toString(2).padStart(8, "0");
    const byHand = bits.match(/.{1,5}/g)!.map((c) => "0123456789abcdefghjkmnpqrstvwxyz"[parseInt(c.padEnd(5, "0"), 2)]).join("");
    expect(tokens.sign("unsubscribe", ["msg_0123456789ab", "all"])).toBe(`msg_0123456789ab.all.${byHand}`);
  });

  it("refuses to sign a field that could break the token's shape", () => {
    expect(() => tokens.sign("open", ["a.b"])).toThrow();
    expect(() => tokens.sign("open", [""])).toThrow();
  });

  it("binds values it does not carry (a bounce token's recipient and domain), and leaves tokens without them as they were", () => {
    const t = tokens.sign("bounce", ["msg_0123456789ab"], ["bob@example.org", "shop.example"]);
    expect(t).toMatch(/^msg_0123456789ab\.[0-9a-z]{16}$/);
    expect(tokens.verify("bounce", t, 1, ["bob@example.org", "shop.example"])).toEqual(["msg_0123456789ab"]);
    for (const bound of [["eve@example.org", "shop.example"], ["bob@example.org", "other.example"], [], ["bob@example.org"], ["bob@example.org", "shop.example", ""]]) {
      expect(tokens.verify("bounce", t, 1, bound), JSON.stringify(bound)).toBeUndefined();
    }
    expect(tokens.verify("open", t, 1, ["bob@example.org", "shop.example"])).toBeUndefined();
    // Tokens already in sent mail (no bound values) keep verifying.
    expect(tokens.sign("open", ["msg_0123456789ab"], [])).toBe(tokens.sign("open", ["msg_0123456789ab"]));
    expect(() => tokens.sign("bounce", ["msg_0123456789ab"], ["a\0b"])).toThrow();
  });
});
