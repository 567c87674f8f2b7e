// Resource ids: a type prefix (readable in logs and support tickets) and 12 random base32 characters.
import { randomFillSync } from "node:crypto";

const alphabet = "0123456789abcdefghjkmnpqrstvwxyz";

// Random bytes drawn from the CSPRNG 4 KB at a time, as crypto.randomUUID does: a call into it
// for 12 bytes cost more than the id (3 % of the send path's CPU). Ids name things; they are no
// secret (tokens and keys draw their own bytes).
const pool = Buffer.alloc(4096);
let used = pool.length;

export function newId(prefix: string): string {
  if (used + 12 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  let out = "";
  for (let i = used; i < used + 12; i++) out += alphabet[pool[i] & 31];
  used += 12;
  return `${prefix}_${out}`;
}

export function nowIso(): string {
  return new Date().toISOString();
}
