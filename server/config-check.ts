// Settings whose bad values would otherwise surface late, as a library's stack trace (pino on a
// level it does not know, getaddrinfo on a listen address, dns.setServers on a resolver): each is
// checked once after the configuration is read, and refused with the setting's name and the
// values it takes. Users meet these messages first, so they say what to write, not what broke.
import ipaddr from "ipaddr.js";
import type { ServerConfig } from "./server-config.ts";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** The first problem found, as one sentence naming the setting; undefined when all is well. */
export function configProblem(c: ServerConfig): string | undefined {
  if (!LOG_LEVELS.includes(c.logLevel)) return `LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${c.logLevel}"`;
  for (const [name, value] of [["HOST", c.host], ["DNS_HOST", c.dns.host], ["SMTP_HOST", c.smtp.host]] as const) {
    if (value !== "localhost" && !ipaddr.isValid(value)) return `${name} must be an IP address to listen on (127.0.0.1, 0.0.0.0, ::1, ::) or localhost, got "${value}"`;
  }
  if (c.publicUrl && !isHttpUrl(c.publicUrl)) return `PUBLIC_URL must be the http:// or https:// URL clients reach the server at (e.g. https://platform.example.com), got "${c.publicUrl}"`;
  if (c.resolver.host && !ipaddr.isValid(c.resolver.host)) return `RESOLVER must be a DNS server's IP address with an optional port (192.0.2.53 or 192.0.2.53:5353), got "${c.resolver.host}"`;
  if (c.outboundResolver && !isResolverAddress(c.outboundResolver)) return `OUTBOUND_RESOLVER must be a DNS server's IP address with an optional port (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:53), got "${c.outboundResolver}"`;
  if (!HOST_NAME.test(c.mailHost)) return `MAIL_HOST must be a host name (letters, digits, hyphens, dots), got "${c.mailHost}"`;
  for (const ns of c.nameServers) if (!HOST_NAME.test(ns)) return `nameServers must be host names, got "${ns}"`;
  for (const p of c.trustedProxies) if (!ipaddr.isValid(p) && !ipaddr.isValidCIDR(p)) return `TRUSTED_PROXIES must list proxy addresses or networks (10.0.0.5, 10.0.0.0/24, ::1), got "${p}"`;
  for (const p of c.smtp.proxyProtocolFrom) if (!ipaddr.isValid(p)) return `SMTP_PROXY_PROTOCOL_FROM must list the balancers' IP addresses (10.0.0.5, ::1), got "${p}"`;
  return undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === "http:" || u.protocol === "https:") && !u.search && !u.hash;
  } catch {
    return false;
  }
}

function isResolverAddress(value: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  if (bracketed) return ipaddr.IPv6.isValid(bracketed[1]) && portOk(bracketed[2]);
  if (ipaddr.isValid(value)) return true;
  const withPort = /^([^:]+):(\d{1,5})$/.exec(value);
  return Boolean(withPort && ipaddr.IPv4.isValid(withPort[1]) && portOk(withPort[2]));
}

const portOk = (port: string | undefined) => port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
