// Webhook targets (docs/decisions.md W4): https only, and never a private, loopback or link-local
// address, so the service cannot be used to reach into the operator's network. The development
// flag accepts http:// and loopback, to test on one machine.
import { isIP } from "node:net";

export function webhookUrlProblem(raw: string, devMode: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  if (url.protocol !== "https:" && !(devMode && url.protocol === "http:")) return "must be an https URL";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (devMode && isLoopback(host)) return undefined;
  if (host === "localhost" || host.endsWith(".localhost") || isPrivateAddress(host)) {
    return "must not point at a private, loopback or link-local address";
  }
  return undefined;
}

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}

/** Private (RFC 1918, ULA), loopback, link-local, unspecified and CGNAT ranges. */
export function isPrivateAddress(host: string): boolean {
  const v = isIP(host);
  if (v === 4) {
    const [a, b] = host.split(".").map(Number);
    return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (v === 6) {
    const h = host.toLowerCase();
    if (h === "::1" || h === "::") return true;
    if (h.startsWith("::ffff:")) return isPrivateAddress(h.slice(7));
    return /^f[cd]/.test(h) || /^fe[89ab]/.test(h);
  }
  return false;
}
