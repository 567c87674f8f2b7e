// The whole server on PostgreSQL (issue 15): two instances on one throwaway database, started at
// once (they migrate under the advisory lock), driven only from outside: the console over
// DATABASE_URL, HTTP calls, DNS queries to each instance's DNS server, mail relayed to the SMTP
// listener, webhooks to a loopback receiver. What one instance writes, the other serves.
import { execFile, spawn } from "node:child_process";
import { createPrivateKey, randomBytes, X509Certificate } from "node:crypto";
import { Resolver } from "node:dns/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../test/support/postgres.ts";
import { freePort } from "./test/free-port.ts";
import { apiFor, startTestPlatform, type Tenant, type TestPlatform } from "./test/harness.ts";
import { startReceiver, type TestReceiver } from "./test/receiver.ts";

const ZONE = "pgtest.test";
const MAIL_HOST = `mx.${ZONE}`;
const admin = path.resolve("server/console/platform-admin.ts");
const entry = path.resolve("server/main.ts");

let cluster: PostgresCluster;
let databaseUrl: string;
let a: TestPlatform;
let b: TestPlatform;
let tenant: Tenant;
let receiver: TestReceiver;
const serverKey = randomBytes(32).toString("base64");
const savedKey = process.env.PLATFORM_SERVER_KEY;

/** The console as an operator runs it, on the same database. */
const console_ = async (...args: string[]) =>
  (await promisify(execFile)(process.execPath, [admin, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } })).stdout;

/** The A records of name as the given instance's DNS server answers them. */
async function resolveAt(p: TestPlatform, name: string): Promise<string[]> {
  const r = new Resolver({ timeout: 1000, tries: 2 });
  r.setServers([`127.0.0.1:${p.dns!.udpPort}`]);
  return r.resolve4(name).catch((e: NodeJS.ErrnoException) => (e.code === "ENOTFOUND" || e.code === "ENODATA" ? [] : Promise.reject(e)));
}

/** Asks until answer(value) holds: another instance's change arrives with its NOTIFY, not at once. */
async function eventually<T>(read: () => Promise<T>, holds: (value: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await read();
    if (holds(value) || i >= 3000) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
}

beforeAll(async () => {
  process.env.PLATFORM_SERVER_KEY = serverKey;
  cluster = await startPostgres();
  databaseUrl = await cluster.newDatabase();
  receiver = await startReceiver(() => 204);
  // Instance A's SMTP port is fixed up front: both instances' relays hand hosted mail to it.
  const smtpPort = await freePort();
  const config = (smtp: number) => ({
    databaseUrl,
    mailHost: MAIL_HOST,
    allowHttpLoopbackWebhooks: true,
    smtp: { enabled: true, host: "127.0.0.1", port: smtp, maxMessageBytes: 1024 * 1024, maxRecipients: 10, maxConnections: 20, maxConnectionsPerClient: 20, idleTimeoutMs: 10_000, sessionTimeoutMs: 600_000, dataTimeoutMs: 300_000, proxyProtocolFrom: [] },
    relay: { name: "", port: smtpPort, allowLoopback: true },
  });
  // Started together: the second waits on the migration lock and finds the schema done.
  [a, b] = await Promise.all([startTestPlatform(config(smtpPort)), startTestPlatform(config(0))]);
  tenant = await a.newTenant("pgtest");
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await receiver?.close();
  await cluster?.stop();
  if (savedKey === undefined) delete process.env.PLATFORM_SERVER_KEY;
  else process.env.PLATFORM_SERVER_KEY = savedKey;
});

describe("the server on PostgreSQL, two instances", () => {
  it("runs on the database, not on a SQLite file", async () => {
    expect(a.services.backend.store.dialect.kind).toBe("postgres");
    expect(b.services.backend.store.dialect.kind).toBe("postgres");
    expect(() => a.db).toThrow("runs on PostgreSQL");
  });

  it("serves a key the console made on the database, on both instances, and drops it on both when revoked", async () => {
    const out = await console_("keys", "create", "--project", tenant.projectId, "--scopes", "all", "--name", "console");
    const key = out.trim().split(/\s+/).pop()!;
    for (const p of [a, b]) expect((await apiFor(p.url, key)("GET", "/v1/mailboxes")).status).toBe(200);
    const id = /created key (\S+)/.exec(out)![1];
    expect(await console_("keys", "list", "--project", tenant.projectId)).toContain(id);
    await console_("keys", "revoke", id);
    for (const p of [a, b]) {
      const status = await eventually(async () => (await apiFor(p.url, key)("GET", "/v1/mailboxes")).status, (s) => s === 401);
      expect(status).toBe(401);
    }
    expect(await console_("projects", "list")).toContain(tenant.projectId);
  });

  it("answers a record created through one instance from both instances' DNS servers", async () => {
    const res = await apiFor(b.url, tenant.key)("POST", `/v1/dns/${ZONE}/records`, { type: "A", name: "mx", data: "127.0.0.1" });
    expect(res.status).toBe(200);
    expect(await resolveAt(b, MAIL_HOST)).toEqual(["127.0.0.1"]);
    expect(await eventually(() => resolveAt(a, MAIL_HOST), (r) => r.length > 0)).toEqual(["127.0.0.1"]);
  });

  it("relays a send to a hosted mailbox: delivered, stored, readable on the other instance, and both events to the webhook", async () => {
    const api = { a: apiFor(a.url, tenant.key), b: apiFor(b.url, tenant.key) };
    const hook = await api.a("POST", "/v1/webhooks", { url: `${receiver.url}/hook`, events: ["mail.delivered", "mail.received"] });
    expect(hook.status).toBe(200);
    const mailbox = await api.b("POST", "/v1/mailboxes", { name: "alice", domain: ZONE, password: "correct horse battery" });
    expect(mailbox.status).toBe(200);
    expect((await eventually(() => api.a("GET", "/v1/mailboxes"), (r) => r.body.mailboxes?.length > 0)).body.mailboxes).toEqual([
      expect.objectContaining({ id: mailbox.body.id, email: `alice@${ZONE}` }),
    ]);

    const sent = await api.a("POST", "/v1/mail/send", { from: `news@${ZONE}`, to: `alice@${ZONE}`, subject: "On PostgreSQL", text: "Hello from the pool." });
    expect(sent.status).toBe(200);
    await receiver.waitFor(2);
    const events = receiver.received.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
    expect(events.map((e) => e.type).sort()).toEqual(["mail.delivered", "mail.received"]);
    expect(events.find((e) => e.type === "mail.delivered")!.data).toMatchObject({ messageId: sent.body.id, to: `alice@${ZONE}` });
    expect(events.find((e) => e.type === "mail.received")!.data).toMatchObject({ mailboxId: mailbox.body.id, subject: "On PostgreSQL" });

    expect((await api.b("GET", `/v1/mail/messages/${sent.body.id}`)).body.message).toMatchObject({ status: "delivered" });
    const list = await api.b("GET", `/v1/mailboxes/${mailbox.body.id}/messages`);
    expect(list.status).toBe(200);
    expect(list.body.messages).toEqual([expect.objectContaining({ subject: "On PostgreSQL" })]);
    const deliveries = await api.b("GET", `/v1/webhooks/${hook.body.id}/deliveries`);
    expect(deliveries.body.deliveries.map((d: { status: string }) => d.status)).toEqual(["delivered", "delivered"]);
    // Nothing of the send is left; the queue keeps only the mail domain's hourly ownership check.
    expect(await a.services.backend.countJobs()).toBe(await a.services.backend.countJobs("maildomain.verify"));
    expect(await a.services.backend.countJobs("maildomain.verify")).toBe(1);
  });

  it("applies the DLP policy the console set: block refuses and logs, warn sends and logs, both read on the other instance", async () => {
    const api = { a: apiFor(a.url, tenant.key), b: apiFor(b.url, tenant.key) };
    const card = { from: `news@${ZONE}`, to: `alice@${ZONE}`, subject: "Payment", text: "Card 4111 1111 1111 1111 exp 12/27" };
    await console_("dlp", "set", "--project", tenant.projectId, "--mode", "block");
    const blocked = await api.a("POST", "/v1/mail/send", card);
    expect(blocked.status).toBe(422);
    expect(blocked.body.code).toBe("dlp_blocked");
    await console_("dlp", "set", "--project", tenant.projectId, "--mode", "warn");
    const warned = await api.b("POST", "/v1/mail/send", card);
    expect(warned.status).toBe(200);
    expect(warned.body.warnings).toEqual([expect.stringMatching(/^DLP: 1 finding: card in text/)]);
    const log = await api.a("GET", "/v1/mail/dlp-events");
    expect(log.body.events.map((e: { action: string; messageId: string | null }) => [e.action, e.messageId])).toEqual([
      ["warned", warned.body.id],
      ["blocked", null],
    ]);
    await console_("dlp", "set", "--project", tenant.projectId, "--mode", "off");
  });

  it("issues a certificate ordered on one instance with the one local CA both started with, served by the other", async () => {
    const api = { a: apiFor(a.url, tenant.key), b: apiFor(b.url, tenant.key) };
    const order = await api.a("POST", "/v1/certs/issue", { domains: [`www.${ZONE}`] });
    expect(order.status).toBe(200);
    const status = await eventually(() => api.b("GET", `/v1/certs/${order.body.id}/status`), (r) => r.body.status !== "pending");
    expect(status.body).toMatchObject({ status: "active", daysLeft: expect.any(Number) });
    const download = await api.b("GET", `/v1/certs/${order.body.id}/download`);
    expect(download.status).toBe(200);
    const leaf = new X509Certificate(download.body.fullchain);
    expect(leaf.subjectAltName).toBe(`DNS:www.${ZONE}`);
    expect(createPrivateKey(download.body.privkey).asymmetricKeyType).toBe("ec");
    // Both instances raced to create the local CA at their first start; one CA won for both.
    const ca = await a.services.certificates.getLocalCa();
    expect(leaf.verify(new X509Certificate(ca!.certPem).publicKey)).toBe(true);
  });

  it("npm start with DATABASE_URL: a third instance serves what the others wrote, creates no demo, and refuses to start without PLATFORM_SERVER_KEY", async () => {
    const parent = mkdtempSync(path.join(tmpdir(), "pg-start-"));
    // A folder that does not exist yet, as ./data on a fresh checkout.
    const dataDir = path.join(parent, "data");
    const env = { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: "0", DNS_PORT: "0", SMTP_PORT: "0", LOG_LEVEL: "warn" };
    const start = (extra: Record<string, string | undefined>) => {
      const child = spawn(process.execPath, [entry], { env: { ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (c) => (out += c));
      child.stderr.on("data", (c) => (out += c));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const listening = new Promise<string | undefined>((resolve) => {
        child.stdout.on("data", () => {
          const m = /^HTTP (http:\/\/\S+)/m.exec(out);
          if (m) resolve(m[1]);
        });
        void exited.then(() => resolve(undefined));
      });
      return { child, exited, listening, output: () => out };
    };
    try {
      const refused = start({ PLATFORM_SERVER_KEY: undefined });
      expect(await refused.exited).not.toBe(0);
      expect(refused.output()).toContain("PLATFORM_SERVER_KEY is not");

      const third = start({ PLATFORM_SERVER_KEY: serverKey });
      const url = await third.listening;
      expect(url, third.output()).toBeDefined();
      try {
        const list = await apiFor(url!, tenant.key)("GET", "/v1/mailboxes");
        expect(list.status).toBe(200);
        expect(list.body.mailboxes.map((m: { email: string }) => m.email)).toContain(`alice@${ZONE}`);
        expect(third.output()).not.toContain("demo project");
        expect(await console_("projects", "list")).not.toContain("Demo project");
      } finally {
        third.child.kill("SIGTERM");
        expect(await third.exited).toBe(0);
      }
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
