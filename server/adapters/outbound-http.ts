// The one way the server POSTs to a URL a customer gave it (webhook deliveries, messenger
// forwarding, any later callback). SSRF-safe without a race: the host name is resolved once, at
// connect time, by the connection's own `lookup`; every address of the answer is checked
// (address-policy.ts) and the socket connects to exactly those addresses, so a name re-pointed at
// 127.0.0.1 between a check and a connect (DNS rebinding) never gets a second chance. Redirects
// are never followed, the answer body is read up to a small cap and dropped.
import { isIP, type LookupFunction } from "node:net";
import { Agent, request } from "undici";
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
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { status: 0, error: "refused: not a valid URL" };
  }
  if (url.protocol !== "https:" && !(development && url.protocol === "http:")) return { status: 0, error: "refused: not an https URL" };
  if (url.username || url.password) return { status: 0, error: "refused: credentials in the URL" };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // Sockets skip `lookup` for an address literal, so a literal is judged here.
  if (isIpLiteral(host)) {
    const verdict = checkAddress(host, { allowLoopback: development });
    if (!verdict.allowed) return { status: 0, error: `refused: ${verdict.reason}` };
  }
  const signal = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const res = await request(url, {
      method: "POST",
      headers: options.headers,
      body: options.body,
      signal,
      dispatcher: agentFor(options.resolve ?? systemResolver, { allowLoopback: development }),
    });
    await discardBody(res.body);
    return { status: res.statusCode };
  } catch (error) {
    return { status: 0, error: describe(error, signal) };
  }
}

async function discardBody(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read > BODY_CAP) break; // leaving the loop destroys the stream and its connection
    }
  } catch {
    // The status already arrived; a body cut short changes nothing.
  }
}

function describe(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return "timeout";
  let e = error as Error & { code?: string; cause?: unknown };
  while (e && !(e instanceof RefusedTarget) && e.cause) e = e.cause as typeof e;
  if (e instanceof RefusedTarget) return `refused: ${e.message}`;
  const base = (error as { code?: string }).code ?? (error as Error).name;
  return `${base}: ${(error as Error).message}`.slice(0, 300);
}

// One connection pool per (resolver, policy): the pool's connections were all made to checked
// addresses, so keep-alive reuse is safe and deliveries to one receiver share connections.
const agents = new Map<HostResolver, Map<boolean, Agent>>();

function agentFor(resolve: HostResolver, policy: AddressPolicy): Agent {
  let byPolicy = agents.get(resolve);
  if (!byPolicy) agents.set(resolve, (byPolicy = new Map()));
  const key = policy.allowLoopback ?? false;
  let agent = byPolicy.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: checkedLookup(resolve, policy) }, keepAliveTimeout: 4_000 });
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
