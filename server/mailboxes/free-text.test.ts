// Control characters in one-line free text (docs/decisions.md R7): refused with a 400 naming the
// field, for mailbox and group descriptions; other Unicode is kept as given.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
let t: Tenant;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("freetext");
});
afterAll(async () => {
  await p?.stop();
});

let n = 0;
const create = (kind: "mailboxes" | "groups", description: string) =>
  t.api("POST", `/v1/${kind}`, { name: `ft${n++}`, domain: t.domain, description, ...(kind === "mailboxes" ? { password: "correct horse battery" } : {}) });

describe.each(["mailboxes", "groups"] as const)("%s description", (kind) => {
  it.each([
    ["NUL", "a\u0000b"],
    ["a line break", "first\nsecond"],
    ["CR", "a\rb"],
    ["a tab", "a\tb"],
    ["ESC", "red \u001b[31m"],
    ["DEL", "a\u007fb"],
    ["a C1 control", "a\u0085b"],
    ["RIGHT-TO-LEFT OVERRIDE", "invoice\u202Efdp.exe"],
    ["LEFT-TO-RIGHT EMBEDDING", "a\u202Ab"],
    ["FIRST STRONG ISOLATE", "a\u2068b"],
  ])("refuses %s", async (_name, description) => {
    const res = await create(kind, description);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain("body.description");
  });

  it("keeps other Unicode, right-to-left text and its marks", async () => {
    expect((await create(kind, "Équipe ventes ✓ — שלום\u200F עולם")).status).toBe(200);
  });
});

it("nothing refused was stored", async () => {
  const all = (await t.api("GET", "/v1/mailboxes")).body.mailboxes as unknown[];
  expect(all).toHaveLength(2);
});
