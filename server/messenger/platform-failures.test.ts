// The platform failing after a bot was connected: its token revoked since (409 on status and
// forwarding), the platform unreachable or refusing our hook (502 upstream_error with its
// description), and nothing recorded for a refused forwarding.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Tenant } from "../test/harness.ts";
import { startMessenger, type MessengerSetup } from "./test/messenger-fixture.ts";

let s: MessengerSetup;
let t: Tenant;
beforeAll(async () => {
  s = await startMessenger();
  t = await s.platform.newTenant("failures");
});
afterAll(() => s.stop());

async function connect(username: string) {
  const bot = s.emulator.addBot({ username });
  const { body } = await t.api("POST", "/v1/messenger/mybots", { token: bot.token });
  return { bot, id: body.id as string };
}

it("answers 409 to forwarding a bot whose token was revoked since, and stores no forwarding", async () => {
  const { bot, id } = await connect("revoked_since_bot");
  s.emulator.revoke(bot.token);
  const res = await t.api("POST", `/v1/messenger/mybots/${id}/webhook`, { forwardUrl: "https://app.example.org/bot" });
  expect(res.status).toBe(409);
  expect(res.body.code).toBe("conflict");
  expect(res.body.error).not.toContain(bot.token.split(":")[1]);
  expect((await t.api("GET", "/v1/messenger/mybots")).body.bots.find((b: { id: string }) => b.id === id).webhookSet).toBe(false);
});

it("answers 502 upstream_error with the platform's description when it refuses the hook URL", async () => {
  const { bot, id } = await connect("refused_hook_bot");
  // The platform refuses a secret it cannot use; simulate a refusal of setWebhook by a bad public URL.
  const saved = s.platform.services.messenger.publicUrl;
  s.platform.services.messenger.publicUrl = () => "ftp://platform.example";
  try {
    const res = await t.api("POST", `/v1/messenger/mybots/${id}/webhook`, { forwardUrl: "https://app.example.org/bot" });
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ code: "upstream_error", error: "the messenger platform refused setWebhook: 400 Bad Request: bad webhook: An HTTPS URL must be provided for webhook" });
    expect(bot.webhook.url).toBe("");
  } finally {
    s.platform.services.messenger.publicUrl = saved;
  }
});

it("answers 502 upstream_error on status when the platform is unreachable", async () => {
  const { id } = await connect("unreachable_status_bot");
  const m = s.platform.services.messenger;
  const saved = m.api;
  const { createBotApiFactory } = await import("../adapters/bot-api.ts");
  m.api = createBotApiFactory({ apiRoot: "http://127.0.0.1:1" });
  try {
    const res = await t.api("GET", `/v1/messenger/mybots/${id}`);
    expect(res.status).toBe(502);
    expect(res.body.code).toBe("upstream_error");
    expect(res.body.error).toContain("ECONNREFUSED");
  } finally {
    m.api = saved;
  }
});
