// What the compose hook adds to a message: the URLs' tokens verify for their purpose and name the
// message, links are in idx order, nothing is added when not asked for.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MessageTokens } from "../tokens/message-token.ts";
import { outgoingExtras } from "./outgoing-extras.ts";

const tokens = new MessageTokens(randomBytes(32));
const deps = { tokens, publicUrl: () => "https://mail.platform.example/" };
const html = `<html><body><a href="https://a.example/">a</a> <a href="https://b.example/x?y=1">b</a></body></html>`;

describe("outgoingExtras", () => {
  it("tracked and with one-click unsubscribe", () => {
    const x = outgoingExtras(deps, { messageId: "msg_0123456789ab", html, track: true, unsubscribe: true });
    expect(x.links).toEqual(["https://a.example/", "https://b.example/x?y=1"]);
    const hrefs = [...x.html!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(hrefs).toHaveLength(2);
    hrefs.forEach((href, idx) => {
      const m = /^https:\/\/mail\.platform\.example\/mail\/c\/([^/]+)$/.exec(href);
      expect(m).not.toBeNull();
      expect(tokens.verify("click", m![1], 2)).toEqual(["msg_0123456789ab", String(idx)]);
    });
    const pixel = /<img[^>]* src="https:\/\/mail\.platform\.example\/mail\/o\/([^"]+)"/.exec(x.html!);
    expect(tokens.verify("open", pixel![1], 1)).toEqual(["msg_0123456789ab"]);
    const unsub = /^<https:\/\/mail\.platform\.example\/mail\/u\/([^>]+)>$/.exec(x.headers["List-Unsubscribe"]);
    expect(tokens.verify("unsubscribe", unsub![1], 1)).toEqual(["msg_0123456789ab"]);
    expect(x.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
  });

  it("neither: HTML untouched, no headers", () => {
    const x = outgoingExtras(deps, { messageId: "msg_0123456789ab", html, track: false, unsubscribe: false });
    expect(x).toEqual({ html, headers: {}, links: [] });
  });

  it("tracked without HTML: nothing to rewrite (text parts are never touched)", () => {
    const x = outgoingExtras(deps, { messageId: "msg_0123456789ab", track: true, unsubscribe: false });
    expect(x.html).toBeUndefined();
    expect(x.links).toEqual([]);
  });
});
