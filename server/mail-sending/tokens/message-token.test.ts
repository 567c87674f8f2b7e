import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MESSAGE_TOKEN_KEY_INFO, MessageTokens, base32 } from "./message-token.ts";

const key = randomBytes(32);
const tokens = new MessageTokens(key);

/** Base32 of the resource ids' alphabet, written plainly from the bits (the tail padded with zeros). */
function byHand(bytes: Buffer): string {
  let bits = "";
  for (const b of bytes) bits += b.toString(2).padStart(8, "0");
  return (bits.match(/.{1,5}/g) ?? []).map((c) => "0123456789abcdefghjkmnpqrstvwxyz"[parseInt(c.padEnd(5, "0"), 2)]).join("");
}

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
    ["one foreign field of two", (t: string) => tokens.verify("click", t.replace(".7.", ".7-."), 2)],
    ["an empty field", (t: string) => tokens.verify("click", t.replace(".7.", ".."), 2)],
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

  it("refuses to sign a field that could break the token's shape, and says which", () => {
    expect(() => tokens.sign("open", ["a.b"])).toThrow('token field "a.b" is not [a-z0-9_]');
    expect(() => tokens.sign("open", ["ok", ""])).toThrow('token field "" is not [a-z0-9_]');
    expect(() => tokens.sign("open", ["x".repeat(65)])).toThrow();
    expect(tokens.sign("open", ["x".repeat(64)])).toMatch(/^x{64}\./);
  });

  // 80 bits are 16 base32 characters exactly; the table covers the tail of a length that does not
  // divide by 5 through the hand-made encoder below (the same one the format test uses).
  it("encodes the MAC as the 16 base32 characters of its 10 bytes, the alphabet of resource ids", () => {
    for (const fields of [["a"], ["b", "1"], ["msg_0123456789ab", "all"], ["z_9"]]) {
      const mac = createHmac("sha256", key).update(`open\0${fields.join("\0")}`).digest().subarray(0, 10);
      expect(tokens.sign("open", fields)).toBe(`${fields.join(".")}.${byHand(mac)}`);
    }
  });

  it.each([
    ["no bytes", "", ""],
    ["one byte (3 bits of tail)", "ff", "zw"],
    ["two bytes (1 bit of tail)", "0001", "000g"],
    ["five bytes (no tail)", "0842108421", "11111111"],
    ["six bytes (3 bits of tail)", "ffffffffffff", "zzzzzzzzzw"],
    ["leading zero bits kept", "000000000a", "0000000a"],
  ])("base32 of %s", (_name, hex, want) => {
    expect(base32(Buffer.from(hex, "hex"))).toBe(want);
    expect(base32(Buffer.from(hex, "hex"))).toBe(byHand(Buffer.from(hex, "hex")));
  });

  // The MAC joins fields with NUL: a field holding one would let a token of two fields pass as a
  // token of one, so verify refuses any field outside the alphabet before it reaches the MAC.
  it("refuses a field that would join two signed fields into one", () => {
    const [a, b, mac] = tokens.sign("open", ["a", "b"]).split(".");
    expect(tokens.verify("open", `${a}\0${b}.${mac}`, 1)).toBeUndefined();
    const [x, y, z, mac3] = tokens.sign("open", ["x", "y", "z"]).split(".");
    expect(tokens.verify("open", `${x}.${y}\0${z}.${mac3}`, 2)).toBeUndefined();
    expect(tokens.verify("open", `${x}.${y}.${z}.${mac3}`, 3)).toEqual(["x", "y", "z"]);
  });

  it("keeps its key's HKDF info, so tokens in sent mail keep verifying after an upgrade", () => {
    expect(MESSAGE_TOKEN_KEY_INFO).toBe("platform mail message tokens v1");
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
    expect(() => tokens.sign("bounce", ["msg_0123456789ab"], ["ok", "a\0b"])).toThrow("a bound token value holds NUL");
  });
});
