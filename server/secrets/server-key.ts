// The server key encrypts stored secrets (webhook signing secrets, DKIM private keys). It comes from
// PLATFORM_SERVER_KEY (base64, 32 bytes) or is created once in the data folder with mode 0600,
// so a copied database alone does not reveal the secrets.
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export function loadServerKey(dataDir: string, env: Record<string, string | undefined> = process.env): Buffer {
  const fromEnv = env.PLATFORM_SERVER_KEY;
  if (fromEnv) return checked(Buffer.from(fromEnv, "base64"), "PLATFORM_SERVER_KEY");
  const file = path.join(dataDir, "server.key");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  return checked(Buffer.from(readFileSync(file, "utf8").trim(), "base64"), file);
}

function checked(key: Buffer, source: string): Buffer {
  if (key.length !== 32) throw new Error(`${source} must hold 32 bytes of base64, got ${key.length}`);
  return key;
}
