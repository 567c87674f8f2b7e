// The server key encrypts stored secrets (webhook signing secrets, DKIM private keys). It comes from
// PLATFORM_SERVER_KEY (base64, 32 bytes) or is created once in the data folder with mode 0600,
// so a copied database alone does not reveal the secrets. On PostgreSQL it must come from
// PLATFORM_SERVER_KEY (decision P6): every instance opens what any other sealed, and a key file
// in one instance's folder would be neither shared nor kept with the data.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { StartupError } from "../startup-errors.ts";

export interface ServerKeyOptions {
  /** The store is shared by several instances (PostgreSQL): only PLATFORM_SERVER_KEY will do. */
  shared?: boolean;
}

export function loadServerKey(dataDir: string, env: Record<string, string | undefined> = process.env, options: ServerKeyOptions = {}): Buffer {
  const fromEnv = env.PLATFORM_SERVER_KEY;
  if (fromEnv) return checked(Buffer.from(fromEnv, "base64"), "PLATFORM_SERVER_KEY");
  if (options.shared) {
    throw new StartupError(
      "DATABASE_URL is set but PLATFORM_SERVER_KEY is not: on PostgreSQL every instance must seal and open stored secrets " +
        "with the same key, so it is never created per instance (decision P6). Set PLATFORM_SERVER_KEY to 32 random bytes " +
        "in base64 (openssl rand -base64 32), the same on every instance, kept as safely as the database's backups.",
    );
  }
  // The key is the first thing written, so its folder is made here (./data on a fresh clone).
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, "server.key");
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  return checked(Buffer.from(readFileSync(file, "utf8").trim(), "base64"), file);
}

function checked(key: Buffer, source: string): Buffer {
  if (key.length !== 32) throw new StartupError(`${source} must hold 32 bytes of base64 (openssl rand -base64 32), got ${key.length}`);
  return key;
}
