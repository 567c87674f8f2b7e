// The one way the server POSTs to a URL a customer gave it (webhook deliveries, messenger
// forwarding, any later callback). SSRF-safe without a race: the host name is resolved once, at
// connect time, by the connection's own `lookup`; every address of the answer is checked
// (address-policy.ts) and the socket connects to exactly those addresses, so a name re-pointed at
// 127.0.0.1 between a check and a connect (DNS rebinding) never gets a second chance. Redirects
// are never followed, the answer body is read up to a small cap and dropped.
import { isIP, type LookupFunction } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { BoundedMemo } from "../bounded-memo.ts";
import { checkAddress, isIpLiteral, type AddressPolicy } from "./address-policy.ts";
import { systemResolver, type HostResolver } from "./host-resolver.ts";

export type { HostResolver } from "./host-resolver.ts";

export interface SafePostOptions {
  body: string | Buffer;
  headers?: Record<string, string>;
  /** Whole exchange (connect, answer status); default 10 s (decision W2). */
  timeoutMs?: number;
  /** The development flag: http:// and loopback targets allowed (other private ranges are not). */
  development?: boolean;
  resolve?: HostResolver;
}

export interface SafePostResult {
  /** The HTTP status; 0 when no answer came (refused target, DNS failure, connect error, timeout). */
  status: number;
  /** Why there was no answer, for the log; never carries the request body or headers. */
  error?: string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
/** Bytes of an answer body read before the connection is dropped; the content is never used. */
const BODY_CAP = 64 * 1024;

/** A target the policy refused, wherever in an error's cause chain the HTTP client puts it. */
export class RefusedTarget extends Error {}

export async function safePost(target: string, options: SafePostOptions): Promise<SafePostResult> {
  const development = options.development ?? false;
  const judged = judge(target, development);
  if (typeof judged === "string") return { status: 0, error: judged };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy = { allowLoopback: development, onlyLoopback: judged.protocol === "http:" };
  const dispatcher = agentFor(options.resolve ?? systemResolver, policy, timeoutMs);
  return exchange(dispatcher, judged, options, timeoutMs);
}

// What judge() said of recent targets: a subscription's URL is judged once, not on every
// delivery (parsing it and an address literal's classification were 4 % of a delivery). The
// verdict depends on nothing but the string and the flag; names are still resolved and checked
// at every connect. Bounded, the oldest entry going first.
const JUDGED_KEPT = 1024;
const judgedTargets = {
  development: new BoundedMemo(JUDGED_KEPT, (target) => judgeAfresh(target, true)),
  production: new BoundedMemo(JUDGED_KEPT, (target) => judgeAfresh(target, false)),
};

/** The parsed URL when the target may be posted to, else why not (the `error` of the answer). */
const judge = (target: string, development: boolean): URL | string => judgedTargets[development ? "development" : "production"].get(target);

function judgeAfresh(target: string, development: boolean): URL | string {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return "refused: not a valid URL";
  }
  if (url.protocol !== "https:" && !(development && url.protocol === "http:")) return "refused: not an https URL";
  if (url.username || url.password) return "refused: credentials in the URL";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // Sockets skip `lookup` for an address literal, so a literal is judged here.
  if (isIpLiteral(host)) {
    const verdict = checkAddress(host, { allowLoopback: development, onlyLoopback: url.protocol === "http:" });
    if (!verdict.allowed) return `refused: ${verdict.reason}`;
  }
  return url;
}

/**
 * One POST through undici's dispatch API: the status is kept, the answer body counted up to its
 * cap and dropped. Not `request()`: its response stream, abort-signal wiring and async iteration
 * were about half of a webhook delivery's HTTP cost, for a body that is thrown away. The timeout
 * covers the whole exchange (DNS, connect, status, body), as decision W2 says: the answer is
 * "timeout" at the deadline even while the request still waits for a connection (undici's own
 * connect timeout ends that attempt), and a request on a socket is aborted at once.
 */
function exchange(dispatcher: Agent, url: URL, options: SafePostOptions, timeoutMs: number): Promise<SafePostResult> {
  return new Promise((resolve) => {
    let status = 0;
    let read = 0;
    let settled = false;
    let controller: Dispatcher.DispatchController | undefined;
    const finish = (result: SafePostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      // A status that already came is the answer; a body still arriving changes nothing.
      finish(status ? { status } : { status: 0, error: "timeout" });
      controller?.abort(new Error("timeout"));
    }, timeoutMs);
    timer.unref();
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        // Answered already before it had a socket: only the deadline settles that early.
        if (settled) c.abort(new Error("timeout"));
      },
      onResponseStart(_c, statusCode) {
        status = statusCode; // a 1xx is followed by the final status, which is what stays
      },
      onResponseData(c, chunk) {
        read += chunk.length;
        // Past the cap the connection is dropped: the status already arrived and is the answer.
        if (read > BODY_CAP) {
          finish({ status });
          c.abort(new Error("answer body past its cap"));
        }
      },
      onResponseEnd() {
        finish({ status });
      },
      onResponseError(_c, error) {
        // An error after the status (a body cut short) changes nothing either.
        finish(status ? { status } : { status: 0, error: describe(error) });
      },
    };
    try {
      dispatcher.dispatch({ origin: url.origin, path: url.pathname + url.search, method: "POST", headers: options.headers, body: options.body }, handler);
    } catch (error) {
      finish({ status: 0, error: describe(error) });
    }
  });
}

function describe(error: unknown): string {
  let e = error as Error & { code?: string; cause?: unknown };
  while (e && !(e instanceof RefusedTarget) && e.cause) e = e.cause as typeof e;
  if (e instanceof RefusedTarget) return `refused: ${e.message}`;
  const base = (error as { code?: string }).code ?? (error as Error).name;
  return `${base}: ${(error as Error).message}`.slice(0, 300);
}

// One connection pool per (resolver, policy, timeout): the pool's connections were all made to
// checked addresses, so keep-alive reuse is safe and deliveries to one receiver share connections.
// Its connect timeout (which covers the DNS lookup) is the exchange's, so a request still waiting
// for its connection at the deadline leaves the pool then, as the answer "timeout" already has.
const agents = new Map<HostResolver, Map<string, Agent>>();

function agentFor(resolve: HostResolver, policy: AddressPolicy, timeoutMs: number): Agent {
  let byPolicy = agents.get(resolve);
  if (!byPolicy) agents.set(resolve, (byPolicy = new Map()));
  const key = `${policy.allowLoopback ?? false} ${policy.onlyLoopback ?? false} ${timeoutMs}`;
  let agent = byPolicy.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: checkedLookup(resolve, policy), timeout: timeoutMs }, keepAliveTimeout: 4_000 });
    byPolicy.set(key, agent);
  }
  return agent;
}

/** Closes the pooled connections (server shutdown, end of a test run). */
export async function closeOutboundConnections(): Promise<void> {
  const all = [...agents.values()].flatMap((m) => [...m.values()]);
  agents.clear();
  await Promise.allSettled(all.map((a) => a.close()));
}

/**
 * net/tls `lookup` that resolves once, refuses the whole answer if any address is not allowed.
 * Exported for its tests: which address family a socket asks for is up to the socket.
 */
export function checkedLookup(resolve: HostResolver, policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then((addresses) => {
      if (addresses.length === 0) throw new RefusedTarget(`${hostname} has no address`);
      for (const address of addresses) {
        const verdict = checkAddress(address, policy);
        if (!verdict.allowed) throw new RefusedTarget(`${hostname} resolves to ${verdict.reason}`);
      }
      const family = options.family === 4 || options.family === 6 ? options.family : 0;
      const usable = addresses.filter((a) => family === 0 || isIP(a) === family);
      if (usable.length === 0) throw new RefusedTarget(`${hostname} has no IPv${family} address`);
      if (options.all) callback(null, usable.map((address) => ({ address, family: isIP(address) })));
      else callback(null, usable[0], isIP(usable[0]));
    }).catch((error: NodeJS.ErrnoException) => callback(error, "", 0));
  };
}
