// Webhook subscriptions through HTTP: URL rules, the secret shown once and sealed at rest, the
// delivery log and redelivery to a real receiver on loopback.
import { createHmac } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let prod: TestPlatform;
let dev: TestPlatform;
let t: Tenant;
let d: Tenant;
beforeAll(async () => {
  prod = await startTestPlatform();
  dev = await startTestPlatform({ allowHttpLoopbackWebhooks: true });
  t = await prod.newTenant("hooks");
  d = await dev.newTenant("devhooks");
});
afterAll(async () => {
  await prod.stop();
  await dev.stop();
});

describe("webhook subscriptions", () => {
  it("returns the whsec_ secret once, lists without it, stores it only sealed", async () => {
    const res = await t.api("POST", "/v1/webhooks", { url: "https://hooks.example.org/p", events: ["mail.delivered", "mail.bounced"] });
    expect(res.body).toEqual({ id: expect.stringMatching(/^whk_/), url: "https://hooks.example.org/p", events: ["mail.delivered", "mail.bounced"], secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{16,}$/) });
    const list = await t.api("GET", "/v1/webhooks");
    expect(list.body.webhooks).toContainEqual({ id: res.body.id, url: "https://hooks.example.org/p", events: ["mail.delivered", "mail.bounced"], active: true });
    expect(JSON.stringify(list.body)).not.toContain("whsec_");
    const row = prod.db.prepare("SELECT secret_enc FROM webhooks WHERE id = ?").get(res.body.id) as { secret_enc: string };
    expect(row.secret_enc).not.toContain(res.body.secret.slice(6));
    expect(prod.services.secrets.open(row.secret_enc)).toBe(res.body.secret);
  });

  const everyEvent = ["mail.received", "mail.delivered", "mail.bounced", "mail.complained", "mail.opened", "mail.clicked", "mail.dlp", "maildomain.status_changed"];

  it("missing or empty events mean all eight: the seed's seven and maildomain.status_changed (O7)", async () => {
    for (const body of [{ url: "https://a.example.org/" }, { url: "https://a.example.org/", events: [] }]) {
      expect([...(await t.api("POST", "/v1/webhooks", body)).body.events].sort()).toEqual([...everyEvent].sort());
    }
  });

  it("maildomain.status_changed may be selected alone, or with all the others named", async () => {
    const alone = await t.api("POST", "/v1/webhooks", { url: "https://a.example.org/", events: ["maildomain.status_changed"] });
    expect(alone.status).toBe(200);
    expect(alone.body.events).toEqual(["maildomain.status_changed"]);
    const named = await t.api("POST", "/v1/webhooks", { url: "https://a.example.org/", events: everyEvent });
    expect(named.status).toBe(200);
    expect(named.body.events).toEqual(everyEvent);
  });

  it.each([
    ["plain http", "http://hooks.example.org/"],
    ["a loopback address", "https://127.0.0.1/hook"],
    ["a private address", "https://10.1.2.3/hook"],
    ["link-local", "https://169.254.169.254/latest"],
    ["localhost", "https://localhost/hook"],
  ])("refuses %s without the development flag", async (_n, url) => {
    const res = await t.api("POST", "/v1/webhooks", { url });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe("body.url");
  });

  it("refuses an unknown event name, listing the names it takes", async () => {
    const res = await t.api("POST", "/v1/webhooks", { url: "https://a.example.org/", events: ["mail.nope"] });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: "body.events.0", message: expect.stringMatching(/^must be one of mail\./) }]);
    for (const name of everyEvent) expect(res.body.error).toContain(name);
  });

  it("with the development flag accepts http to loopback but still not to other hosts", async () => {
    expect((await d.api("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hook" })).status).toBe(200);
    expect((await d.api("POST", "/v1/webhooks", { url: "http://hooks.example.org/" })).status).toBe(200);
    expect((await d.api("POST", "/v1/webhooks", { url: "ftp://127.0.0.1/" })).status).toBe(400);
  });

  it("deliveries are empty until mail flows; an unknown delivery is 404; delete works once", async () => {
    const hook = await t.api("POST", "/v1/webhooks", { url: "https://hooks.example.org/x" });
    expect((await t.api("GET", `/v1/webhooks/${hook.body.id}/deliveries`)).body).toEqual({ deliveries: [] });
    const redeliver = await t.api("POST", `/v1/webhooks/${hook.body.id}/deliveries/1/redeliver`);
    expect(redeliver.status).toBe(404);
    expect(redeliver.body.code).toBe("not_found");
    expect((await t.api("DELETE", `/v1/webhooks/${hook.body.id}`)).body).toEqual({ deleted: true });
    expect((await t.api("DELETE", `/v1/webhooks/${hook.body.id}`)).status).toBe(404);
  });

  it("redelivers a logged delivery to the receiver, signed with the whole secret", async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const port = (receiver.address() as { port: number }).port;
    try {
      const hook = await d.api("POST", "/v1/webhooks", { url: `http://127.0.0.1:${port}/hook` });
      const payload = JSON.stringify({ id: "evt_1", type: "mail.delivered", createdAt: "2026-11-21T10:00:00Z", data: {} });
      // A log entry from an earlier life of the subscription, written directly: redelivery works on any.
      const row = dev.db
        .prepare("INSERT INTO webhook_deliveries (webhook_id, event, status, http_code, attempts, payload, created_at) VALUES (?, 'mail.delivered', 'failed', 500, 7, ?, ?) RETURNING id")
        .get(hook.body.id, payload, new Date().toISOString()) as { id: number };
      const res = await d.api("POST", `/v1/webhooks/${hook.body.id}/deliveries/${row.id}/redeliver`);
      expect(res.body).toEqual({ status: "delivered", httpCode: 204 });
      expect(received).toHaveLength(1);
      expect(received[0].body).toBe(payload);
      expect(received[0].headers["x-platform-event"]).toBe("mail.delivered");
      const expected = `sha256=${createHmac("sha256", hook.body.secret).update(payload).digest("hex")}`;
      expect(received[0].headers["x-platform-signature"]).toBe(expected);
      const log = await d.api("GET", `/v1/webhooks/${hook.body.id}/deliveries`);
      expect(log.body.deliveries[0]).toMatchObject({ id: row.id, status: "delivered", httpCode: 204, attempts: 8, payload });
    } finally {
      receiver.close();
    }
  });
});
