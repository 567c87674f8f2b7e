// How a key travels, read from the contract's security schemes (bearer, basic or an API-key header).
import type { Contract, Operation } from "./types.ts";

export function authHeaders(contract: Contract, op: Operation | undefined, key: string | null | undefined): Record<string, string> {
  if (!key) return {};
  const names = op?.security.flat() ?? [];
  const schemeName = names[0] ?? Object.keys(contract.securitySchemes)[0];
  const scheme = schemeName ? contract.securitySchemes[schemeName] : undefined;
  if (scheme?.type === "apiKey" && scheme.in === "header") return { [String(scheme.name).toLowerCase()]: key };
  if (scheme?.type === "http" && /^basic$/i.test(scheme.scheme)) return { authorization: `Basic ${Buffer.from(key).toString("base64")}` };
  return { authorization: `Bearer ${key}` };
}

export function requiresAuth(op: Operation): boolean {
  return op.security.length > 0 && op.security.every((req) => req.length > 0);
}
