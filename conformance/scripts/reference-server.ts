// Starts the reference server the way `npm run conformance:reference` tests it: a free port, a
// fresh data dir, projects, zones and keys from its console (platform-admin), the mail domain and
// mailbox fixtures through the API itself, as any client would; and writes the suite config.
// Shared by scripts/reference.ts and bench/bench.ts. With REFERENCE_BACKEND=postgres (npm run
// conformance:reference:postgres) the server and its console run on a throwaway PostgreSQL
// cluster (test/support/postgres.ts), the way DATABASE_URL deployments run.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import nodemailer from "nodemailer";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { startBotApiEmulator } from "../../server/messenger/test/bot-api-emulator.ts";
import { startNginx, type Proxy } from "../../test/support/nginx.ts";
import { startPostgres, type PostgresCluster } from "../../test/support/postgres.ts";
import { freePort, waitForHttp } from "./free-port.ts";
import { closeConsoleKeys, consoleCommand } from "./reference-keys.ts";

const root = path.resolve(import.meta.dirname, "../..");
const entry = path.join(root, "server/main.ts");
const admin = path.join(root, "server/console/platform-admin.ts");
const exitWithParent = path.join(root, "test/support/exit-with-parent.ts");

export class ReferenceUnavailable extends Error {}

export interface Reference {
  baseUrl: string;
  configFile: string;
  /** SIGTERM, then SIGKILL after `graceMs` */
  stop(graceMs?: number): Promise<void>;
}

// The MX of every mail domain here; an A record 127.0.0.1 in the first project's zone makes the
// built-in relay hand mail for hosted mailboxes to the server's own SMTP listener, so a send
// through the API ends `delivered` and emits `mail.delivered` (the webhook check's trigger).
const RELAY_HOST = "mx.conf-a.test";

export async function startReference(): Promise<Reference> {
  if (!existsSync(entry) || !existsSync(admin)) {
    throw new ReferenceUnavailable(`the reference server is not there yet (${path.relative(root, existsSync(entry) ? admin : entry)} missing)`);
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "conformance-ref-"));
  const backend = process.env.REFERENCE_BACKEND ?? "sqlite";
  if (backend !== "sqlite" && backend !== "postgres") throw new ReferenceUnavailable(`REFERENCE_BACKEND must be sqlite or postgres, not ${backend}`);
  // A fresh database per run, as the SQLite run gets a fresh data dir; the key every instance shares (P6).
  let cluster: PostgresCluster | undefined;
  const store: Record<string, string> = {};
  if (backend === "postgres") {
    cluster = await startPostgres();
    store.DATABASE_URL = await cluster.newDatabase();
    store.PLATFORM_SERVER_KEY = randomBytes(32).toString("base64");
  }
  // REFERENCE_INSTANCES=2 (npm run conformance:reference:scale-out): that many servers on the one
  // PostgreSQL database, each with its own ports and data dir, the suite talking to nginx
  // round-robin in front of them (test/support/nginx.ts), as a deployment of several instances runs.
  const count = Number(process.env.REFERENCE_INSTANCES ?? "1");
  if (!Number.isInteger(count) || count < 1) throw new ReferenceUnavailable(`REFERENCE_INSTANCES must be a whole number from 1, not ${process.env.REFERENCE_INSTANCES}`);
  if (count > 1 && backend !== "postgres") throw new ReferenceUnavailable("REFERENCE_INSTANCES above 1 needs REFERENCE_BACKEND=postgres: instances share one database");
  const ports: { port: number; dnsPort: number; smtpPort: number }[] = [];
  for (let i = 0; i < count; i++) ports.push({ port: await freePort(), dnsPort: await freePort(), smtpPort: await freePort() });
  const { smtpPort } = ports[0];
  // The messenger platform: a Bot API emulator on loopback that takes any well-formed token (the
  // suite makes them from the contract's pattern), a manager bot for creation links, and one
  // shared preset the suite names in valid cases.
  const botApi = await startBotApiEmulator({ acceptAnyToken: true });
  const manager = botApi.addBot({ username: "conformance_manager_bot", canManageBots: true });
  const platformConfig = path.join(dataDir, "platform.config.json");
  // Webhook URLs the fuzzer invents resolve through our own DNS server (refused, never sent out),
  // and the cap is high enough that they leave room for the signature check's subscription.
  writeFileSync(platformConfig, JSON.stringify({
    limits: { webhooks: 1000 },
    messenger: { presets: [{ id: "pre_conformance", name: "Conformance", commands: [{ command: "start", description: "Start" }] }] },
  }));
  // Each instance relays to its own SMTP listener and resolves through its own DNS server.
  const envOf = ({ port, dnsPort, smtpPort }: (typeof ports)[number], i: number) => ({
    ...process.env, DATA_DIR: i === 0 ? dataDir : path.join(dataDir, `instance-${i}`), HOST: "127.0.0.1", PORT: String(port), DNS_PORT: String(dnsPort), SMTP_PORT: String(smtpPort), MAIL_HOST: RELAY_HOST, RELAY_PORT: String(smtpPort), RELAY_ALLOW_LOOPBACK: "on",
    OUTBOUND_RESOLVER: `127.0.0.1:${dnsPort}`, PLATFORM_CONFIG: platformConfig, MESSENGER_API_ROOT: botApi.url, MESSENGER_MANAGER_TOKEN: manager.token,
    DEMO: "off", ALLOW_HTTP_LOOPBACK_WEBHOOKS: "on", LOG_LEVEL: "warn", ...store });
  // The console's commands in this process, on the store the server created (a platform-admin
  // process start is about a second of CPU; seven of them made the set-up).
  const admin_ = consoleCommand({ dataDir, databaseUrl: store.DATABASE_URL });
  const console_ = (args: string) => admin_(args.split(" "));
  const lastWord = (s: string) => s.trim().split(/\s+/).pop()!;

  const servers = ports.map((p, i) => {
    const instanceEnv = envOf(p, i);
    mkdirSync(instanceEnv.DATA_DIR, { recursive: true });
    // Each server exits when this process's end of its stdin closes, however this process ends.
    const child = spawn(process.execPath, ["--import", exitWithParent, entry], { env: instanceEnv, cwd: root, stdio: ["pipe", "inherit", "inherit"] });
    const server = { child, url: `http://127.0.0.1:${p.port}`, alive: true, exited: Promise.resolve() };
    server.exited = new Promise<void>((resolve) => child.on("exit", () => resolve(void (server.alive = false))));
    return server;
  });
  let proxy: Proxy | undefined;
  const cleanUp = () => {
    for (const server of servers) if (server.alive) server.child.kill("SIGTERM");
    void botApi.close();
    rmSync(dataDir, { recursive: true, force: true });
    // The cluster's and nginx's watchdogs stop them when this process's end of their pipes closes.
  };
  process.on("exit", cleanUp);
  const stop = async (graceMs = 5_000) => {
    await proxy?.stop();
    for (const server of servers) if (server.alive) server.child.kill("SIGTERM");
    const timer = setTimeout(() => servers.forEach((server) => server.alive && server.child.kill("SIGKILL")), graceMs);
    await Promise.all(servers.map((server) => server.exited));
    clearTimeout(timer);
    await botApi.close();
    await closeConsoleKeys();
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  for (const server of servers) {
    if (!(await waitForHttp(`${server.url}/openapi.json`, 30_000, () => server.alive))) {
      await stop();
      throw new ReferenceUnavailable("the reference server did not start");
    }
  }
  if (count > 1) proxy = await startNginx(servers.map((server) => server.url));
  const baseUrl = proxy?.url ?? servers[0].url;

  async function project(name: string, zone: string, mailbox: string) {
    const id = /(prj_\w+)/.exec(await console_(`projects create ${name}`))![1];
    await console_(`zones create ${zone} --project ${id}`);
    const key = lastWord(await console_(`keys create --project ${id} --scopes all --rate-limit 1000000`));
    // Bodies are read (an unread one keeps undici's connection busy) and a failed fixture stops here.
    const call = async (method: string, p: string, body: unknown) => {
      const res = await fetch(`${baseUrl}${p}`, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new ReferenceUnavailable(`fixture ${method} ${p} answered ${res.status}: ${text}`);
      return JSON.parse(text) as { id: string };
    };
    await call("POST", "/v1/maildomains", { name: zone });
    const created = await call("POST", "/v1/mailboxes", { name: mailbox, domain: zone, password: "conformance-password" });
    return { id, key, zone, address: `${mailbox}@${zone}`, mailboxId: created.id, call };
  }

  /** Mail in the first project's mailbox, delivered as any MTA would, for the reading operations. */
  async function deliverReadingFixture(address: string, mailboxId: string): Promise<{ mailboxId: string; messageIds: string[]; rfcMessageIds: string[] }> {
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: smtpPort, secure: false, tls: { rejectUnauthorized: false } });
    const rfcMessageIds = ["first", "second", "third"].map((n) => `conformance-${n}@sender.test`);
    try {
      for (const [i, rfcId] of rfcMessageIds.entries()) {
        await transport.sendMail({
          from: "Sender <sender@sender.test>", to: address, subject: `Fixture ${i + 1}`, text: `Message ${i + 1}`, messageId: `<${rfcId}>`,
          attachments: i === 0 ? [{ filename: "a.txt", content: "attachment" }] : [],
        });
      }
    } finally {
      transport.close();
    }
    return { mailboxId, messageIds: ["1", "2", "3"], rfcMessageIds };
  }

  const a = await project("conformance-a", "conf-a.test", "alice");
  // An own CSR for the fixture domain, made by openssl: a schema-valid `csr` the server must accept.
  const csrDir = path.join(dataDir, "csr");
  await promisify(execFile)("openssl", [
    "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", `/CN=${a.zone}`,
    "-addext", `subjectAltName=DNS:${a.zone}`, "-keyout", `${csrDir}.key`, "-out", `${csrDir}.csr`,
  ]);
  const mx = await fetch(`${baseUrl}/v1/dns/${a.zone}/records`, {
    method: "POST", headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json" },
    body: JSON.stringify({ type: "A", name: RELAY_HOST.slice(0, -a.zone.length - 1), data: "127.0.0.1" }),
  });
  if (!mx.ok) throw new ReferenceUnavailable(`fixture A record for ${RELAY_HOST} answered ${mx.status}: ${await mx.text()}`);
  const b = await project("conformance-b", "conf-b.test", "bob");
  // A subscription that hears the fixture mail arrive, so a delivery exists to list and redeliver.
  const receiver = http.createServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  receiver.unref();
  const hook = await a.call("POST", "/v1/webhooks", { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/fixture`, events: ["mail.received"] });
  const reading = await deliverReadingFixture(a.address, a.mailboxId);
  const deliveries = (await a.call("GET", `/v1/webhooks/${hook.id}/deliveries`, undefined)) as unknown as { deliveries: { id: number }[] };
  if (!deliveries.deliveries.length) throw new ReferenceUnavailable("fixture mail caused no webhook delivery");
  // A sent message to read and a scheduled one to cancel (ids the fuzzer cannot guess).
  const sent = await a.call("POST", "/v1/mail/send", { from: `noreply@${a.zone}`, to: a.address, subject: "fixture", text: "fixture" });
  const scheduled = await a.call("POST", "/v1/mail/send", { from: `noreply@${a.zone}`, to: a.address, subject: "later", text: "later", sendAt: new Date(Date.now() + 86_400_000).toISOString() });
  // An issued certificate: the job worker signs it a moment after the order, so wait for it as a
  // client would; the suite's own orders may still be pending when it downloads them (409).
  const cert = await a.call("POST", "/v1/certs/issue", { domains: [`www.${a.zone}`] });
  for (let i = 0; (await a.call("GET", `/v1/certs/${cert.id}/status`, undefined) as unknown as { status: string }).status === "pending"; i++) {
    if (i > 1000) throw new ReferenceUnavailable("the fixture certificate stayed pending");
    await new Promise((r) => setTimeout(r, 10));
  }
  const lowLimit = lastWord(await console_(`keys create --project ${a.id} --scopes all --rate-limit 5`));
  const configFile = path.join(dataDir, "conformance.config.ts");
  const settings = {
    baseUrl,
    keys: {
      all: a.key,
      otherProject: b.key,
      lowLimit,
    },
    values: { zone: a.zone, domain: a.zone, from: `noreply@${a.zone}`, mailbox: a.address, domains: [a.zone], csr: readFileSync(`${csrDir}.csr`, "utf8"), presetId: "pre_conformance" },
    // The shared preset is every project's: using it from the other project is no leak.
    ownedValues: ["zone", "domain", "from", "mailbox", "domains", "csr"],
    // The platform promises its error body on every error, the router's 405s included (decision E1).
    errorSchema: { $ref: "#/components/schemas/ErrorBody" },
    webhooks: {
      subscribe: "createWebhook",
      // Mail to the first project's own mailbox: relayed to our SMTP listener, delivered, signed event.
      trigger: { operationId: "sendMail", event: "mail.delivered", body: { from: `noreply@${a.zone}`, to: a.address, subject: "Webhook conformance", text: "Delivered to a hosted mailbox." } },
      deliveries: "listWebhookDeliveries",
      protocol: "http",
      waitMs: 15_000,
    },
    // What only the outside world makes: received mail (over SMTP above), a recorded delivery and
    // an issued certificate.
    operations: {
      listMailboxMessages: { values: { id: reading.mailboxId } },
      getMailboxMessage: { values: { id: reading.mailboxId, msgId: reading.messageIds[0] } },
      // The first fixture message carries one attachment (a.txt).
      getMailboxMessageAttachment: { values: { id: reading.mailboxId, msgId: reading.messageIds[0], attachmentId: "1" } },
      getMailboxMessageRaw: { values: { id: reading.mailboxId, msgId: reading.messageIds[0] } },
      findMailboxMessage: { values: { id: reading.mailboxId, value: `<${reading.rfcMessageIds[0]}>` } },
      redeliverWebhookDelivery: { values: { id: hook.id, deliveryId: deliveries.deliveries[0].id } },
      // A sample to the fixture webhook, queued like an event (decision W8).
      sendWebhookTestEvent: { values: { id: hook.id } },
      // Business rules of sending the schema cannot state (decisions S5, S14, S15): an unknown
      // template or version, sendAt past 90 days, reserved or CR/LF-bearing headers are 400.
      getSentMessage: { values: { id: sent.id } },
      cancelMessage: { values: { id: scheduled.id } },
      sendMail: { acceptStatuses: [400] },
      sendMailBatch: { acceptStatuses: [400] },
      getCertificateStatus: { values: { id: cert.id } },
      downloadCertificate: { values: { id: cert.id } },
    },
  };
  // Scoped keys (keys.withScopes) are made by the console's own command in the suite's process,
  // and revoked by it when the run ends (issue 39 item 7): a platform-admin process per key cost
  // about a second of CPU each, 44 per run (scripts/reference-keys.ts). A .ts config, since
  // functions are no JSON.
  const keysOptions = { dataDir, databaseUrl: store.DATABASE_URL, project: a.id, rateLimit: 1_000_000 };
  writeFileSync(configFile, [
    `import { consoleKeys } from ${JSON.stringify(pathToFileURL(path.join(import.meta.dirname, "reference-keys.ts")).href)};`,
    `const settings = ${JSON.stringify(settings, null, 2)};`,
    `const keys = consoleKeys(${JSON.stringify(keysOptions)});`,
    "export default { ...settings, keys: { ...settings.keys, withScopes: keys.withScopes, revoke: keys.revoke } };",
    "",
  ].join("\n"));
  // DATA_DIR (or DATABASE_URL) must reach the console the suite runs for scoped keys.
  process.env.DATA_DIR = dataDir;
  Object.assign(process.env, store);
  return { baseUrl, configFile, stop };
}
