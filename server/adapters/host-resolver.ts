// Host name to addresses, for outbound connections. Production asks the system (getaddrinfo,
// /etc/hosts included); tests and special setups point it at given DNS servers, e.g. our own
// authoritative server on a high port, which the system resolver cannot be told to use.
import { promises as dns } from "node:dns";

/** Resolves a host name to its addresses, IPv4 and IPv6. */
export type HostResolver = (host: string) => Promise<string[]>;

export const systemResolver: HostResolver = async (host) =>
  (await dns.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** A resolver asking only `servers` ("ip:port"), A and AAAA; a name without either has no address. */
export function resolverAt(servers: string[], timeoutMs = 2000): HostResolver {
  const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers(servers);
  const orEmpty = (p: Promise<string[]>) => p.catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENODATA" || error.code === "ENOTFOUND") return [];
    throw error;
  });
  return async (host) => (await Promise.all([orEmpty(resolver.resolve4(host)), orEmpty(resolver.resolve6(host))])).flat();
}
