// Resource ids: a type prefix (readable in logs and support tickets) and 12 random base32 characters.
import { randomBytes } from "node:crypto";

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";

export function newId(prefix: string): string {
  const bytes = randomBytes(12);
  let out = "";
  for (const b of bytes) out += alphabet[b & 31];
  return `${prefix}_${out}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
