// int32 and int64 are ranges the validation enforces (docs/decisions.md E3), on every operation,
// through a real server: an offset past int32 was handed to SQLite ("datatype mismatch", a 500)
// or accepted (2147483648, then a 200 body breaking its own int32 schema), and an int64 past
// 2^53 was silently rounded. Each is now a 400 naming the range, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
let t: Tenant;
let mailbox: string;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("ranges");
  const created = await t.api("POST", "/v1/mailboxes", { name: "range", domain: t.domain, password: "correct horse battery" });
  expect(created.status).toBe(200);
  mailbox = created.body.id;
});
afterAll(async () => {
  await p?.stop();
});

const INT32_MESSAGE = "must be an integer from -2147483648 to 2147483647 (int32)";
const INT64_MESSAGE = "must be an integer from -9007199254740991 to 9007199254740991 (int64 values beyond these cannot be represented exactly)";

describe("int32 query parameters (offset) on every list that has one", () => {
  const lists = () => [`/v1/mailboxes/${mailbox}/messages`, "/v1/mail/messages", "/v1/mail/dlp-events"];

  it.each(["9223372036854775807", "2147483648", "-2147483649", "9007199254740993", "100000000000000000000000000000"])("offset=%s is 400 with the int32 range", async (offset) => {
    for (const list of lists()) {
      const res = await t.api("GET", `${list}?offset=${offset}`);
      // Below zero also breaks `minimum: 0`, which is a detail of its own.
      expect({ list, status: res.status, body: res.body }).toEqual({ list, status: 400, body: { error: expect.any(String), code: "invalid_request", details: expect.arrayContaining([{ path: "query.offset", message: INT32_MESSAGE }]) } });
    }
  });

  it("offset=2147483647, the int32 maximum, is a valid empty page", async () => {
    for (const list of lists()) {
      const res = await t.api("GET", `${list}?offset=2147483647`);
      expect({ list, status: res.status }).toEqual({ list, status: 200 });
    }
  });
});

describe("int64 parameters beyond 2^53 are refused, not rounded", () => {
  it.each(["9007199254740993", "9223372036854775807", "-9223372036854775808"])("deliveryId=%s is 400 with the int64 message", async (id) => {
    const hook = await t.api("POST", "/v1/webhooks", { url: "https://hooks.example.org/x", events: ["mail.delivered"] });
    expect(hook.status).toBe(200);
    const res = await t.api("POST", `/v1/webhooks/${hook.body.id}/deliveries/${id}/redeliver`);
    expect(res.status).toBe(400);
    expect(res.body.details).toContainEqual({ path: "path.deliveryId", message: INT64_MESSAGE });
  });

  it("9007199254740991 (2^53 - 1) is in range: the delivery is simply not found", async () => {
    const hook = await t.api("POST", "/v1/webhooks", { url: "https://hooks.example.org/y", events: ["mail.delivered"] });
    const res = await t.api("POST", `/v1/webhooks/${hook.body.id}/deliveries/9007199254740991/redeliver`);
    expect(res.status).toBe(404);
  });
});
