// The SMTP client of the built-in relay: finds the recipient domain's MX through our resolver
// adapter (server/dns/resolver.ts), refuses non-public addresses unless told otherwise, connects
// to exactly the address it checked, upgrades with STARTTLS when offered (opportunistic: MTAs do
// not verify each other's certificates), and reports the reply as one of four outcomes. With a
// smarthost configured it talks to that host instead (its port, TLS and AUTH).
//
// MX resolution is done here rather than with mx-connect: its licence (EUPL) is a copyleft we
// would have to carry, and what it adds on top of `resolveMx` + `resolve4` (DANE, MTA-STS) is
// not part of this issue; the resolver adapter already points at our own DNS server.
import SMTPConnection from "nodemailer/lib/smtp-connection";
import type { DnsResolver } from "../dns/resolver.ts";
import { checkAddress } from "./address-policy.ts";
import { ConnectionCache } from "./smtp-connection-cache.ts";

export interface SmarthostConfig {
  host: string;
  port: number;
  /** Implicit TLS (465); otherwise STARTTLS, required when `requireTls`. */
  secure: boolean;
  requireTls: boolean;
  user?: string;
  pass?: string;
}

export interface SmtpRelayOptions {
  resolver: DnsResolver;
  /** Port of recipient MX hosts: 25, or a loopback sink's port in tests. */
  port: number;
  /** Our name in EHLO. */
  heloName: string;
  /** Development and tests: allow loopback MX addresses (never other non-public ones). */
  allowLoopback: boolean;
  smarthost?: SmarthostConfig;
  timeoutMs?: number;
}

export interface RcptRejection {
  rcpt: string;
  code: number;
  reply: string;
}

export type RelayResult =
  /** The server took the message for at least one recipient (2xx after DATA). */
  | { kind: "accepted"; host: string; reply: string; queueId?: string; rejected: RcptRejection[] }
  /** Permanent refusal (5xx) of the whole transaction or of every recipient. */
  | { kind: "rejected"; code: number; reply: string; host?: string }
  /** Try later: 4xx, no connection, DNS timeout. `host`: the last server tried, when one was found. */
  | { kind: "deferred"; code?: number; reply: string; host?: string }
  /** The domain cannot receive mail at all (no such domain, null MX, no usable address). */
  | { kind: "unroutable"; reply: string };

/** Sessions kept open between messages to the same server, as an MTA's connection cache does. */
const cache = new ConnectionCache();

export async function relayMessage(o: SmtpRelayOptions, envelope: { from: string; to: string[] }, raw: Buffer): Promise<RelayResult> {
  if (o.smarthost) return deliverTo(o, o.smarthost.host, o.smarthost.host, envelope, raw, o.smarthost);
  const domain = envelope.to[0].slice(envelope.to[0].lastIndexOf("@") + 1);
  const route = await cachedRoute(o, domain);
  if ("kind" in route) return route;
  let last: RelayResult = { kind: "deferred", reply: `no MX host of ${domain} answered` };
  for (const { host, address } of route.targets) {
    last = await deliverTo(o, host, address, envelope, raw);
    // Only a connection that never got a reply moves on to the next MX; a reply is the answer.
    if (last.kind !== "deferred" || last.code !== undefined) return last;
  }
  return last;
}

// Routes are kept for a minute, as a resolver's cache would (two lookups per message otherwise).
// Only found routes are kept, so a domain that had no route is asked again on its next retry.
const ROUTE_TTL_MS = 60_000;
const routes = new Map<string, { at: number; targets: Target[] }>();

async function cachedRoute(o: SmtpRelayOptions, domain: string): Promise<{ targets: Target[] } | RelayResult> {
  const key = `${o.allowLoopback}:${domain.toLowerCase()}`;
  const hit = routes.get(key);
  if (hit && performance.now() - hit.at < ROUTE_TTL_MS) return { targets: hit.targets };
  const route = await mxRoute(o, domain);
  if ("targets" in route) {
    if (routes.size > 10_000) routes.clear();
    routes.set(key, { at: performance.now(), targets: route.targets });
  }
  return route;
}

interface Target {
  host: string;
  address: string;
}

async function mxRoute(o: SmtpRelayOptions, domain: string): Promise<{ targets: Target[] } | RelayResult> {
  let hosts: string[];
  try {
    const mx = await o.resolver.resolveMx(domain);
    if (mx.length === 1 && (mx[0].exchange === "" || mx[0].exchange === ".")) return { kind: "unroutable", reply: `${domain} accepts no mail (null MX, RFC 7505)` };
    hosts = mx.sort((a, b) => a.priority - b.priority).map((m) => m.exchange);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND") return { kind: "unroutable", reply: `${domain}: no such domain` };
    // RFC 5321 §5.1: without MX records the domain itself is the mail exchanger.
    if (code === "ENODATA") hosts = [domain];
    else return { kind: "deferred", reply: `MX lookup of ${domain} failed: ${code ?? (error as Error).message}` };
  }
  const targets: Target[] = [];
  let refused = "";
  for (const host of hosts) {
    let addresses: string[] = [];
    try {
      addresses = await o.resolver.resolve4(host);
    } catch {
      continue;
    }
    for (const address of addresses) {
      const verdict = checkAddress(address, { allowLoopback: o.allowLoopback });
      if (verdict.allowed) targets.push({ host, address });
      else refused = `${host}: ${verdict.reason}, refused`;
    }
  }
  if (targets.length === 0) return refused ? { kind: "unroutable", reply: refused } : { kind: "deferred", reply: `no address for the MX hosts of ${domain}` };
  return { targets };
}

async function deliverTo(o: SmtpRelayOptions, host: string, address: string, envelope: { from: string; to: string[] }, raw: Buffer, smarthost?: SmarthostConfig): Promise<RelayResult> {
  const port = smarthost?.port ?? o.port;
  const key = `${address}:${port}:${host}`;
  const reused = cache.take(key);
  if (reused) {
    const result = await sendOn(reused, host, envelope, raw);
    // A cached session the server dropped meanwhile: not a byte was taken, open a fresh one.
    if (!(result.kind === "deferred" && result.code === undefined)) return settle(key, reused, result);
    reused.close();
  }
  let connection: SMTPConnection;
  try {
    connection = await open(o, host, address, port, smarthost);
  } catch (error) {
    return { ...fromError(error as Error), host };
  }
  const result = settle(key, connection, await sendOn(connection, host, envelope, raw));
  return result.kind === "unroutable" ? result : { ...result, host };
}

/** After a reply the session is still good (a refusal is about one message): keep it for the next. */
function settle(key: string, connection: SMTPConnection, result: RelayResult): RelayResult {
  if (result.kind === "accepted") cache.give(key, connection);
  else if ("code" in result && result.code !== undefined && result.code !== 421) connection.reset((error) => (error ? connection.close() : cache.give(key, connection)));
  else connection.close();
  return result;
}

function open(o: SmtpRelayOptions, host: string, address: string, port: number, smarthost?: SmarthostConfig): Promise<SMTPConnection> {
  const timeout = o.timeoutMs ?? 60_000;
  const connection = new SMTPConnection({
    host: address,
    port,
    servername: host,
    name: o.heloName,
    secure: smarthost?.secure ?? false,
    requireTLS: smarthost?.requireTls ?? false,
    opportunisticTLS: !smarthost?.requireTls,
    tls: { rejectUnauthorized: Boolean(smarthost) },
    allowInternalNetworkInterfaces: o.allowLoopback,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  });
  return new Promise((resolve, reject) => {
    let connected = false;
    // One listener for the connection's whole life: an idle cached session may fail any time.
    connection.on("error", (error) => {
      if (!connected) reject(error);
      connection.close();
    });
    connection.connect(() => {
      const ready = () => {
        connected = true;
        resolve(connection);
      };
      // A refused AUTH is our configuration, not the recipient: no reply code, so it is retried
      // (and `failed` in the end), never a bounce that would suppress the address.
      const refused = (error: Error & { response?: string }) => Object.assign(new Error(`smarthost refused AUTH: ${error.response ?? error.message}`), { code: "EAUTH" });
      if (smarthost?.user) connection.login({ user: smarthost.user, pass: smarthost.pass ?? "" }, (error) => (error ? reject(refused(error)) : ready()));
      else ready();
    });
  });
}

function sendOn(connection: SMTPConnection, host: string, envelope: { from: string; to: string[] }, raw: Buffer): Promise<RelayResult> {
  return new Promise((resolve) => {
    const onClose = () => resolve({ kind: "deferred", reply: "ECONNECTION: the connection closed" });
    connection.once("end", onClose);
    connection.send({ from: envelope.from, to: envelope.to }, raw, (error, info) => {
      connection.removeListener("end", onClose);
      if (error) return resolve(fromError(error));
      resolve({
        kind: "accepted", host, reply: info.response, queueId: queueIdOf(info.response),
        rejected: (info.rejectedErrors ?? []).map((e, i) => ({ rcpt: info.rejected[i], code: e.responseCode ?? 550, reply: e.response ?? e.message })),
      });
    });
  });
}

function fromError(error: Error & { responseCode?: number; response?: string; code?: string }): Extract<RelayResult, { kind: "rejected" | "deferred" }> {
  const code = error.responseCode;
  const reply = error.response ?? error.message;
  if (code !== undefined && code >= 500) return { kind: "rejected", code, reply };
  if (code !== undefined && code >= 400) return { kind: "deferred", code, reply };
  return { kind: "deferred", reply: `${error.code ?? "ECONNECTION"}: ${error.message}` };
}

// The shapes of real 250 replies, most specific first (S11): Postfix, SendGrid, smtp-server
// ("Ok: queued as ABC123"); Exim ("OK id=1rAbCd-000Ab1-Xy"); Sendmail ("2.0.0 3AL1Xyz0012345
// Message accepted for delivery"); Gmail ("2.0.0 OK  1700000000 d12-2002.12 - gsmtp", the token
// before " - gsmtp"); Microsoft 365 ("2.6.0 <message-id> [InternalId=...] Queued mail");
// Amazon SES and others ("Ok 0100018b...-000000", one bare token after Ok). None of these: the
// caller keeps the whole reply text.
const QUEUE_ID_SHAPES = [
  /queued as\s+<?([A-Za-z0-9._@-]+)>?/i,
  /\bid=<?([A-Za-z0-9._@-]+)>?/i,
  /^250[ -](?:\d\.\d{1,3}\.\d{1,3}\s+)?([A-Za-z0-9._-]{6,})\s+Message accepted/i,
  /\s([A-Za-z0-9._-]+)\s+-\s+gsmtp\s*$/i,
  /^250[ -](?:\d\.\d{1,3}\.\d{1,3}\s+)?<([^<>\s]+)>/,
  // A bare token must hold a digit, so "250 Thanks" is not an id.
  /^250[ -](?:\d\.\d{1,3}\.\d{1,3}\s+)?(?:Ok:?\s+)?((?=[A-Za-z._-]*\d)[A-Za-z0-9._-]{6,})\s*$/i,
];

/** The id a server names in its 250 reply, when it names one; callers fall back to the reply. */
export function queueIdOf(reply: string): string | undefined {
  for (const shape of QUEUE_ID_SHAPES) {
    const id = shape.exec(reply.trim())?.[1];
    if (id) return id;
  }
  return undefined;
}
