// Configuration: defaults, then a JSON config file, then environment variables (highest).
// The file is PLATFORM_CONFIG, else ./platform.config.json when present.
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { configProblem } from "./config-check.ts";
import { configFileProblem } from "./config-schema.ts";
import { presetProblem } from "./messenger/presets.ts";
import type { RelayConfig, ServerConfig } from "./server-config.ts";

// The configuration's shape lives in server-config.ts, so config-check.ts reads it without importing
// this file back; every importer of these types may keep naming config.ts.
export type { ServerConfig, SmtpConfig, RelayConfig, AcmeConfig, MessengerConfig, Limits } from "./server-config.ts";

export const defaults: ServerConfig = {
  host: "127.0.0.1",
  port: 8080,
  publicUrl: "",
  dataDir: "./data",
  databaseUrl: "",
  dns: { enabled: true, host: "127.0.0.1", port: 5353 },
  resolver: { host: "", port: 0 },
  mailHost: "mx.platform.test",
  nameServers: ["ns1.platform.test", "ns2.platform.test"],
  allowHttpLoopbackWebhooks: false,
  webhookTimeoutMs: 10_000,
  trustedProxies: [],
  corsOrigins: [],
  outboundResolver: "",
  demo: true,
  logLevel: "info",
  limits: { webhooks: 20, mailboxes: 1000, groups: 200, membersPerGroup: 500, recordsPerZone: 1000, mailDomains: 100, certificates: 1000, bots: 100 },
  smtp: { enabled: true, host: "127.0.0.1", port: 2525, maxMessageBytes: 25 * 1024 * 1024, maxRecipients: 100, maxConnections: 200, maxConnectionsPerClient: 20, idleTimeoutMs: 60_000, sessionTimeoutMs: 30 * 60_000, dataTimeoutMs: 10 * 60_000, proxyProtocolFrom: [] },
  relay: { name: "", port: 25, allowLoopback: false },
  certificates: { issuer: "local", acme: { directoryUrl: "", eabKid: "", eabHmacKey: "", caFile: "", email: "", pollMinMs: 1000 } },
  messenger: { apiRoot: "https://api.telegram.org", managerToken: "", timeoutMs: 10_000, linkTtlSeconds: 3600, bulkConcurrency: 5, presets: [] },
  dlp: { threads: 0 },
};

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): ServerConfig {
  const file = env.PLATFORM_CONFIG ?? (existsSync(path.join(cwd, "platform.config.json")) ? "platform.config.json" : undefined);
  const fromFile = file ? readConfigFile(path.resolve(cwd, file), env.PLATFORM_CONFIG ? "PLATFORM_CONFIG" : "platform.config.json") : {};
  const c: ServerConfig = {
    ...defaults,
    ...fromFile,
    dns: { ...defaults.dns, ...fromFile.dns },
    resolver: { ...defaults.resolver, ...fromFile.resolver },
    limits: { ...defaults.limits, ...fromFile.limits },
    smtp: { ...defaults.smtp, ...fromFile.smtp },
    relay: { ...defaults.relay, ...fromFile.relay },
    certificates: {
      ...defaults.certificates,
      ...fromFile.certificates,
      acme: { ...defaults.certificates.acme, ...fromFile.certificates?.acme },
    },
    messenger: { ...defaults.messenger, ...fromFile.messenger },
    dlp: { ...defaults.dlp, ...fromFile.dlp },
  };
  if (env.HOST) c.host = env.HOST;
  // The DNS server and the SMTP listener listen where HTTP does unless told otherwise (decision
  // OP3): a deployment that sets HOST to its public address serves mail and DNS there too.
  if (fromFile.dns?.host === undefined && !env.DNS_HOST) c.dns.host = c.host;
  if (fromFile.smtp?.host === undefined && !env.SMTP_HOST) c.smtp.host = c.host;
  if (env.PORT) c.port = intOf("PORT", env.PORT);
  if (env.PUBLIC_URL) c.publicUrl = env.PUBLIC_URL;
  if (env.DATA_DIR) c.dataDir = env.DATA_DIR;
  if (env.DATABASE_URL) c.databaseUrl = env.DATABASE_URL;
  if (env.DNS_HOST) c.dns.host = env.DNS_HOST;
  if (env.DNS_PORT) c.dns.port = intOf("DNS_PORT", env.DNS_PORT);
  if (env.DNS_ENABLED) c.dns.enabled = flagOf("DNS_ENABLED", env.DNS_ENABLED);
  if (env.RESOLVER) {
    const [host, port] = env.RESOLVER.split(/:(?=\d+$)/);
    c.resolver = { host, port: port ? intOf("RESOLVER", port) : 53 };
  }
  if (env.MAIL_HOST) c.mailHost = env.MAIL_HOST;
  if (env.ALLOW_HTTP_LOOPBACK_WEBHOOKS) c.allowHttpLoopbackWebhooks = flagOf("ALLOW_HTTP_LOOPBACK_WEBHOOKS", env.ALLOW_HTTP_LOOPBACK_WEBHOOKS);
  if (env.OUTBOUND_RESOLVER) c.outboundResolver = env.OUTBOUND_RESOLVER;
  if (env.WEBHOOK_TIMEOUT_MS) c.webhookTimeoutMs = msOf("WEBHOOK_TIMEOUT_MS", env.WEBHOOK_TIMEOUT_MS);
  if (env.DEMO) c.demo = flagOf("DEMO", env.DEMO);
  if (env.LOG_LEVEL) c.logLevel = env.LOG_LEVEL;
  if (env.SMTP_HOST) c.smtp.host = env.SMTP_HOST;
  if (env.SMTP_PORT) c.smtp.port = intOf("SMTP_PORT", env.SMTP_PORT);
  if (env.SMTP_ENABLED) c.smtp.enabled = flagOf("SMTP_ENABLED", env.SMTP_ENABLED);
  if (env.RELAY_NAME) c.relay.name = env.RELAY_NAME;
  if (env.RELAY_PORT) c.relay.port = intOf("RELAY_PORT", env.RELAY_PORT);
  if (env.RELAY_ALLOW_LOOPBACK) c.relay.allowLoopback = flagOf("RELAY_ALLOW_LOOPBACK", env.RELAY_ALLOW_LOOPBACK);
  if (env.SMARTHOST) c.relay.smarthost = smarthostOf(env.SMARTHOST);
  if (env.TRUSTED_PROXIES !== undefined) c.trustedProxies = listOf(env.TRUSTED_PROXIES);
  if (env.SMTP_PROXY_PROTOCOL_FROM !== undefined) c.smtp.proxyProtocolFrom = listOf(env.SMTP_PROXY_PROTOCOL_FROM);
  if (env.CORS_ORIGINS !== undefined) c.corsOrigins = env.CORS_ORIGINS.split(",").map((o) => o.trim()).filter(Boolean);
  for (const origin of c.corsOrigins) {
    if (origin !== "*" && originOf(origin) !== origin) throw new Error(`CORS_ORIGINS: "${origin}" is not an origin like https://app.example.com (or *)`);
  }
  loadCertificateEnv(c, env);
  if (env.MESSENGER_API_ROOT) c.messenger.apiRoot = env.MESSENGER_API_ROOT;
  if (env.MESSENGER_MANAGER_TOKEN) c.messenger.managerToken = env.MESSENGER_MANAGER_TOKEN;
  if (env.DLP_THREADS) c.dlp.threads = countOf("DLP_THREADS", env.DLP_THREADS, 64);
  c.dataDir = path.resolve(cwd, c.dataDir);
  if (existsSync(c.dataDir) && !statSync(c.dataDir).isDirectory()) throw new Error(`DATA_DIR=${c.dataDir} is a file; it must be a folder (created when missing)`);
  const problem = configProblem(c);
  if (problem) throw new Error(problem);
  for (const preset of c.messenger.presets) {
    const bad = presetProblem(preset, c.allowHttpLoopbackWebhooks);
    if (bad) throw new Error(`messenger.presets: ${bad}`);
  }
  return c;
}

const listOf = (value: string) => value.split(",").map((v) => v.trim()).filter(Boolean);

function loadCertificateEnv(c: ServerConfig, env: Env): void {
  const acme = c.certificates.acme;
  if (env.CERT_ISSUER) c.certificates.issuer = env.CERT_ISSUER as "local" | "acme";
  if (env.ACME_DIRECTORY_URL) acme.directoryUrl = env.ACME_DIRECTORY_URL;
  if (env.ACME_EAB_KID) acme.eabKid = env.ACME_EAB_KID;
  if (env.ACME_EAB_HMAC_KEY) acme.eabHmacKey = env.ACME_EAB_HMAC_KEY;
  if (env.ACME_CA_FILE) acme.caFile = env.ACME_CA_FILE;
  if (env.ACME_EMAIL) acme.email = env.ACME_EMAIL;
  const issuer = c.certificates.issuer;
  if (issuer !== "local" && issuer !== "acme") throw new Error(`CERT_ISSUER must be local or acme, got "${issuer}"`);
  if (issuer === "acme" && !/^https:\/\//.test(acme.directoryUrl)) throw new Error("CERT_ISSUER=acme needs ACME_DIRECTORY_URL, an https:// directory URL");
  if (Boolean(acme.eabKid) !== Boolean(acme.eabHmacKey)) throw new Error("ACME_EAB_KID and ACME_EAB_HMAC_KEY go together");
}

// The README documents on/off; the usual spellings of both are accepted, anything else is refused,
// since reading "of" or "Off " as one or the other silently would be worse than not starting.
function flagOf(name: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (["1", "true", "on", "yes"].includes(v)) return true;
  if (["0", "false", "off", "no"].includes(v)) return false;
  throw new Error(`${name} must be on or off (also 1/0, true/false, yes/no), got "${value}"`);
}

function intOf(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number, got ${value}`);
  return n;
}

// SMARTHOST=smtp://user:pass@host:587 (STARTTLS required) or smtps://user:pass@host:465.
function smarthostOf(value: string): NonNullable<RelayConfig["smarthost"]> {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`SMARTHOST must be smtp://[user:pass@]host[:port] or smtps://..., got a malformed URL`);
  }
  if (u.protocol !== "smtp:" && u.protocol !== "smtps:") throw new Error("SMARTHOST must start with smtp:// or smtps://");
  const secure = u.protocol === "smtps:";
  return {
    host: u.hostname,
    port: u.port ? intOf("SMARTHOST port", u.port) : secure ? 465 : 587,
    secure,
    requireTls: !secure,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    pass: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

function readConfigFile(file: string, setting: string): Partial<ServerConfig> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`${setting}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not a JSON object");
  } catch (error) {
    throw new Error(`${setting}: ${file} is not a JSON object of settings (${(error as Error).message})`);
  }
  const problem = configFileProblem(parsed, file);
  if (problem) throw new Error(problem);
  return parsed as Partial<ServerConfig>;
}

function countOf(name: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new Error(`${name} must be a whole number from 0 to ${max} (0: the default), got ${value}`);
  return n;
}

function msOf(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 600_000) throw new Error(`${name} must be milliseconds from 1 to 600000, got ${value}`);
  return n;
}

function originOf(value: string): string | undefined {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}
