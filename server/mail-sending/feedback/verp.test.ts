import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MessageTokens } from "../tokens/message-token.ts";
import { looksLikeVerp, messageIdOfVerp, verpAddress } from "./verp.ts";

const tokens = new MessageTokens(randomBytes(32));

describe("VERP Return-Path", () => {
  const address = verpAddress(tokens, "msg_0123456789ab", "Shop.Example");

  it("is a valid address on the sender domain, local part within 64 characters", () => {
    expect(address).toMatch(/^bounces\+msg_0123456789ab\.[0-9a-z]{16}@shop\.example$/);
    expect(address.split("@")[0].length).toBeLessThanOrEqual(64);
  });

  it.each([
    ["as made", address, "msg_0123456789ab"],
    ["upper-cased by an MTA", address.toUpperCase(), "msg_0123456789ab"],
    ["on another of our domains", address.replace("shop.example", "other.example"), "msg_0123456789ab"],
    ["another message id with the same MAC", address.replace("msg_0123456789ab", "msg_0123456789ac"), undefined],
    ["without the prefix", address.replace("bounces+", ""), undefined],
    ["not an address", "bounces+msg_0123456789ab", undefined],
    ["another key's address", verpAddress(new MessageTokens(randomBytes(32)), "msg_0123456789ab", "shop.example"), undefined],
  ])("%s", (_name, given, want) => {
    expect(messageIdOfVerp(tokens, given)).toBe(want);
  });

  it("looksLikeVerp is the router's cheap test", () => {
    expect(looksLikeVerp(address)).toBe(true);
    expect(looksLikeVerp("alice@shop.example")).toBe(false);
  });
});
