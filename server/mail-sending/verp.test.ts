// The signed return path (decision T6) on its own, without SMTP: what `for` writes, what
// `claimedMessageId` reads before any check, and every way `verify` refuses an address that was
// not made by `for` for that message, role, recipient and domain.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MessageTokens } from "./tokens/message-token.ts";
import { ReturnPaths, rfcMessageIdFor, type ReturnPathMessage } from "./verp.ts";

const tokens = new MessageTokens(randomBytes(32));
const paths = new ReturnPaths(tokens);
const message: ReturnPathMessage = { id: "msg_0123456789ab", to: "Bob@Example.org", from: "news@Shop.Example" };
const toPath = paths.for(message);
const copiesPath = paths.for(message, "copies");
const mac = (address: string) => address.slice(0, address.indexOf("@")).split(".").pop()!;

describe("ReturnPaths.for", () => {
  it("writes bounces+<id>.<mac> for the To recipient and bounces+<id>.c.<mac> for copies, on the sender's domain in lower case", () => {
    expect(toPath).toMatch(/^bounces\+msg_0123456789ab\.[0-9a-z]{16}@shop\.example$/);
    expect(copiesPath).toMatch(/^bounces\+msg_0123456789ab\.c\.[0-9a-z]{16}@shop\.example$/);
    expect(paths.for(message, "to")).toBe(toPath);
  });

  it("signs with the bounce purpose, the recipient (To only) and the domain bound", () => {
    expect(mac(toPath)).toBe(tokens.sign("bounce", [message.id], ["bob@example.org", "shop.example"]).split(".").pop());
    expect(mac(copiesPath)).toBe(tokens.sign("bounce", [message.id, "c"], ["", "shop.example"]).split(".").pop());
  });
});

describe("ReturnPaths.claimedMessageId", () => {
  it.each([
    ["a To address", toPath, "msg_0123456789ab"],
    ["a copies address", copiesPath, "msg_0123456789ab"],
    ["upper case", toPath.toUpperCase(), "msg_0123456789ab"],
    ["a forged MAC (not checked here)", "bounces+msg_x.abc@any.example", "msg_x"],
    ["the old form without MAC", "bounces+msg_0123456789ab@shop.example", undefined],
    ["three fields without the copies mark", "bounces+msg_x.d.abc@shop.example", undefined],
    ["four fields", "bounces+msg_x.c.abc.def@shop.example", undefined],
    ["another prefix", "bounce+msg_x.abc@shop.example", undefined],
    ["the prefix not at the start", "xbounces+msg_x.abc@shop.example", undefined],
    ["no @", "bounces+msg_x.abc", undefined],
    ["the prefix only in the domain", "alice@bounces+msg_x.abc", undefined],
  ])("%s", (_name, address, want) => {
    expect(paths.claimedMessageId(address)).toBe(want);
  });
});

describe("ReturnPaths.verify", () => {
  it("answers the role an address was made for, in any case", () => {
    expect(paths.verify(toPath, message)).toBe("to");
    expect(paths.verify(copiesPath, message)).toBe("copies");
    expect(paths.verify(toPath.toUpperCase(), message)).toBe("to");
    expect(paths.verify(toPath, { ...message, id: message.id.toUpperCase() })).toBe("to");
  });

  const other = (m: Partial<ReturnPathMessage>) => ({ ...message, ...m });
  it.each([
    ["another message", toPath, other({ id: "msg_ffffffffffff" })],
    ["another To recipient", toPath, other({ to: "eve@example.org" })],
    ["another sender domain", toPath, other({ from: "news@other.example" })],
    ["the address moved to another domain", toPath.replace("@shop.example", "@other.example"), message],
    ["a changed MAC", toPath.replace(/[0-9a-z]@/, (c) => (c[0] === "a" ? "b@" : "a@")), message],
    ["the copies MAC under the To form", `bounces+${message.id}.${mac(copiesPath)}@shop.example`, message],
    ["the To MAC under the copies form", `bounces+${message.id}.c.${mac(toPath)}@shop.example`, message],
    ["the old form without MAC", `bounces+${message.id}@shop.example`, message],
    ["no VERP address at all", "postmaster@shop.example", message],
    ["no @", `bounces+${message.id}.${mac(toPath)}`, message],
  ])("refuses %s", (_name, address, m) => {
    expect(paths.verify(address, m)).toBeUndefined();
  });

  it("refuses an address made with another key", () => {
    expect(new ReturnPaths(new MessageTokens(randomBytes(32))).verify(toPath, message)).toBeUndefined();
  });

  it("does not care about the copies' recipients: their address covers none", () => {
    expect(paths.verify(copiesPath, other({ to: "anyone@else.example" }))).toBe("copies");
  });
});

describe("rfcMessageIdFor", () => {
  it("puts the message id on the sender domain", () => {
    expect(rfcMessageIdFor("msg_1", "shop.example")).toBe("msg_1@shop.example");
  });
});
