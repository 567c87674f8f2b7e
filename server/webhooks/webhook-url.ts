// Webhook targets (docs/decisions.md W4): https only, and never an address outside the public
// internet, so the service cannot be used to reach into the operator's network. The development
// flag accepts http:// and loopback, to test on one machine. Host names are checked again at
// every delivery against what they resolve to (server/adapters/outbound-http.ts).
import { checkAddress, isIpLiteral } from "../adapters/address-policy.ts";

/**
 * The contract's url pattern is https only (what production accepts); the development flag also
 * accepts http://, so with it the request schema says so too (docs/decisions.md CR2).
 */
export function withHttpWebhookUrls(components: { $id: string; $defs: Record<string, unknown> }): { $id: string; $defs: Record<string, unknown> } {
  const url = (components.$defs.CreateWebhookRequest as { properties?: { url?: { pattern?: string } } } | undefined)?.properties?.url;
  if (url?.pattern?.startsWith("^https://")) url.pattern = `^https?://${url.pattern.slice("^https://".length)}`;
  return components;
}

export function webhookUrlProblem(raw: string, devMode: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not a valid URL";
  }
  if (url.username || url.password) return "must not carry credentials";
  if (url.protocol !== "https:" && !(devMode && url.protocol === "http:")) return "must be an https URL";
  // The URL parser has already turned 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 into 127.0.0.1
  // and IPv6 into its compressed form; the policy judges what is left.
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) {
    return devMode ? undefined : "must not point at a loopback address";
  }
  // Plain http:// (development flag) reaches loopback only: every connect checks that all of the
  // target's addresses are loopback (adapters/outbound-http.ts). Registration does not refuse a
  // public literal over http, since the contract's development schema accepts any http URL.
  if (isIpLiteral(host) && !checkAddress(host, { allowLoopback: devMode }).allowed) {
    return "must point at a public internet address (not private, loopback, link-local or otherwise reserved)";
  }
  return undefined;
}
