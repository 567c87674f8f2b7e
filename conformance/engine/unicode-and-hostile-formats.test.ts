// Issue 39 item 8: the suite sends non-ASCII in every free string (a server answering 500 to any
// fails, even with -n 1) and draws formats as a hostile client writes them (a server refusing
// `https://10.0.0.1/` for a `format: uri` field fails; a contract stating the rule passes).
import { describe, expect, it } from "vitest";
import { json, runOn } from "../fixtures/run-on.ts";
import type { Answer, Recorded } from "../fixtures/recording-server.ts";

const note = { type: "object", required: ["title"], properties: { title: { type: "string", minLength: 1, maxLength: 40 }, tags: { type: "array", items: { type: "string", maxLength: 10 } }, code: { type: "string", pattern: "^[A-Z]{3}$" } } };
const notes = {
  openapi: "3.1.0",
  info: { title: "unicode", version: "1" },
  paths: {
    "/notes": {
      post: {
        operationId: "createNote",
        parameters: [{ name: "q", in: "query", schema: { type: "string", maxLength: 12 } }],
        requestBody: { required: true, content: json(note) },
        responses: { "201": { description: "made", content: json({ type: "object" }) }, "400": { description: "bad", content: json({ type: "object" }) } },
      },
    },
  },
};
const raw = (r: Recorded) => decodeURIComponent(r.url) + r.body.toString("utf8");
const nonAscii = (r: Recorded) => /[^\x00-\x7f]/.test(raw(r));
const fine: Answer = () => ({ status: 201, body: {} });

describe("non-ASCII strings", () => {
  it.each([1, 10])("with -n %i, a server answering 500 to any non-ASCII string fails the run", async (n) => {
    const { failures, requests } = await runOn(notes, (r) => (nonAscii(r) ? { status: 500, body: { error: "ascii only" } } : fine(r)), { maxExamples: n, mode: "positive", checks: ["not_a_server_error"] });
    expect(requests.filter(nonAscii).length).toBeGreaterThan(0);
    expect(failures).toEqual([expect.stringMatching(/^not_a_server_error createNote: \[500\]/)]);
  });

  it("multi-byte, astral, combining and right-to-left characters are all sent, and NUL where a string is free", async () => {
    const { failures, requests } = await runOn(notes, fine, { mode: "positive", checks: ["not_a_server_error", "positive_data_acceptance"] });
    const text = requests.map(raw).join("");
    for (const [what, re] of [["two-byte", /[\u0080-\u07ff]/], ["three-byte", /[\u0800-\uffff]/u], ["astral", /[\u{10000}-\u{10ffff}]/u], ["combining", /\p{M}/u], ["right-to-left", /[\u0590-\u08ff]/], ["NUL", /\u0000/]] as const) {
      expect(re.test(text), what).toBe(true);
    }
    // The pattern-bound `code` never gets them: every sent code still matches ^[A-Z]{3}$.
    const codes = requests.flatMap((r) => { try { const b = JSON.parse(r.body.toString()); return typeof b?.code === "string" ? [b.code] : []; } catch { return []; } });
    expect(codes.every((c) => /^[A-Z]{3}$/.test(c))).toBe(true);
    expect(failures).toEqual([]);
  });

  it("a server that refuses NUL with a 400 is not failed (an edge case: refusing is fair, crashing is not)", async () => {
    const { failures } = await runOn(notes, (r) => (raw(r).includes("\u0000") ? { status: 400, body: { error: "NUL" } } : fine(r)), { mode: "positive", checks: ["not_a_server_error", "positive_data_acceptance"] });
    expect(failures).toEqual([]);
  });
});

const hook = (url: object) => ({
  openapi: "3.1.0",
  info: { title: "hooks", version: "1" },
  paths: {
    "/hooks": {
      post: {
        operationId: "createHook",
        requestBody: { required: true, content: json({ type: "object", required: ["url"], properties: { url: url } }) },
        responses: { "201": { description: "made", content: json({ type: "object" }) }, "400": { description: "bad", content: json({ type: "object" }) } },
      },
    },
  },
});
// Refuses what the platform's server refuses: any host that is an IP literal or localhost.
const publicOnly: Answer = (r) => {
  let url: URL;
  try {
    url = new URL(JSON.parse(r.body.toString()).url);
  } catch {
    return { status: 400, body: { error: "bad url" } };
  }
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  return /^[\d.]+$|^\[|^0x|localhost$/.test(host) ? { status: 400, body: { error: "not a public address" } } : { status: 201, body: {} };
};
// What the contract says when it states that rule: the host is a name, not an address nor localhost.
const NAMED_HOST = "^https?://(?![^/?#]*@)(?![Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]\\.?(?:[:/?#]|$))(?!\\[)(?!(?:0[xX][0-9a-fA-F]*|\\d+)(?:\\.(?:0[xX][0-9a-fA-F]*|\\d+))*\\.?(?:[:/?#]|$))[^/?#@\\s]+(?:[/?#]\\S*)?$";

describe("formats drawn as a hostile client writes them", () => {
  it("a server with a public-address rule the contract does not state fails", async () => {
    const { failures, requests } = await runOn(hook({ type: "string", format: "uri" }), publicOnly, { mode: "positive", checks: ["positive_data_acceptance"] });
    expect(requests.some((r) => /"url":"https?:\/\/(?:\d|\[|localhost)/i.test(r.body.toString()))).toBe(true);
    expect(failures).toEqual([expect.stringMatching(/^positive_data_acceptance createHook: valid input refused with 400: .*not a public address/)]);
  });

  it("the same server passes once the contract states the rule", async () => {
    const { failures } = await runOn(hook({ type: "string", format: "uri", pattern: NAMED_HOST }), publicOnly, { mode: "positive", checks: ["positive_data_acceptance"], maxExamples: 50 });
    expect(failures).toEqual([]);
  });
});
