// The outside-world adapter for DNS lookups, used by the mail-domain `ready` check. It
// wraps node:dns so tests (and the embedded default) can point it at our own server on a
// non-standard port, which the system resolver cannot do.
import { promises as dns, type MxRecord } from "node:dns";

export interface ResolverOptions {
  /** "ip:port" or "[ipv6]:port" entries; a bare ip means port 53. */
  servers: string[];
  /** Per-try timeout in milliseconds (node:dns default is about 5 s with backoff). */
  timeoutMs?: number;
  tries?: number;
}

/**
 * Lookups rejecting like node:dns: `code` is ENOTFOUND for NXDOMAIN, ENODATA for a name
 * without records of that type, EREFUSED when the server is not authoritative for it.
 * The `*OrEmpty` variants read "not there" as an empty list, which is what a readiness
 * check wants; real failures (timeouts, refusals) still reject.
 */
export interface DnsResolver {
  resolveTxt(name: string): Promise<string[][]>;
  resolveMx(name: string): Promise<MxRecord[]>;
  resolveCname(name: string): Promise<string[]>;
  resolve4(name: string): Promise<string[]>;
  /** `dns.promises.resolve`'s signature, which mail authentication (mailauth) expects. */
  resolve(name: string, rrtype: string): Promise<unknown>;
  /** TXT records with their character-strings joined, as SPF, DKIM and DMARC read them. */
  resolveTxtJoinedOrEmpty(name: string): Promise<string[]>;
  resolveMxOrEmpty(name: string): Promise<MxRecord[]>;
}

const ABSENT = new Set(["ENOTFOUND", "ENODATA"]);

async function orEmpty<T>(lookup: Promise<T[]>): Promise<T[]> {
  try {
    return await lookup;
  } catch (error) {
    if (ABSENT.has((error as NodeJS.ErrnoException).code ?? "")) return [];
    throw error;
  }
}

export function createResolver(options: ResolverOptions): DnsResolver {
  const resolver = new dns.Resolver({ timeout: options.timeoutMs ?? 2000, tries: options.tries ?? 2 });
  resolver.setServers(options.servers);
  return {
    resolveTxt: (name) => resolver.resolveTxt(name),
    resolveMx: (name) => resolver.resolveMx(name),
    resolveCname: (name) => resolver.resolveCname(name),
    resolve4: (name) => resolver.resolve4(name),
    resolve: (name, rrtype) => resolver.resolve(name, rrtype),
    resolveTxtJoinedOrEmpty: async (name) => (await orEmpty(resolver.resolveTxt(name))).map((chunks) => chunks.join("")),
    resolveMxOrEmpty: (name) => orEmpty(resolver.resolveMx(name)),
  };
}
