// DKIM private keys are sealed with the server key at rest (issue 17 item 9): the database file
// holds no PEM, callers still get the PEM, and migration 6 seals the rows of older databases.
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../db/database.ts";
import { migrations, runMigrations } from "../db/migrations.ts";
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { loadServerKey } from "../secrets/server-key.ts";
import { startTestPlatform } from "../test/harness.ts";
import { SqliteMailDomainRepository } from "./sqlite-maildomain-repository.ts";

/** Every byte SQLite keeps for the database, as text. */
function databaseBytes(dir: string): string {
  return ["platform.sqlite", "platform.sqlite-wal"]
    .map((f) => path.join(dir, f))
    .filter(existsSync)
    .map((f) => readFileSync(f).toString("latin1"))
    .join("");
}

/** Fails when the file holds the PEM's armour or any 32-character run of its base64 body. */
function expectNoPem(bytes: string, pem: string) {
  expect(bytes).not.toContain("PRIVATE KEY");
  const body = pem.split("\n").filter((l) => l && !l.startsWith("-----")).join("");
  for (let i = 0; i + 32 <= body.length; i += 32) expect(bytes.includes(body.slice(i, i + 32)), `run at ${i}`).toBe(false);
}

describe("DKIM private keys at rest", () => {
  it("a connected domain's key is sealed in the file and a PEM to callers", async () => {
    const p = await startTestPlatform();
    try {
      const t = await p.newTenant("sealed");
      const domain = (await p.services.mailDomains.getByName(t.projectId, t.domain))!;
      expect(domain.dkimPrivateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
      // The PEM is the pair of the published public key.
      expect(createPublicKey(domain.dkimPrivateKey).export({ type: "spki", format: "der" }).toString("base64")).toBe(domain.dkimPublicKey);
      const stored = p.db.prepare("SELECT dkim_private_key_sealed AS v FROM mail_domains WHERE name = ?").get(t.domain) as { v: string };
      expect(stored.v).toMatch(/^v1\./);
      await p.close();
      expectNoPem(databaseBytes(p.dataDir), domain.dkimPrivateKey);
    } finally {
      rmSync(p.dataDir, { recursive: true, force: true });
    }
  });

  it("migration 6 seals the plaintext rows of an older database", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "dkim-migration-"));
    try {
      const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }) as string;
      const old = new DatabaseSync(path.join(dir, "platform.sqlite"));
      old.exec("PRAGMA journal_mode = WAL");
      runMigrations(old, migrations.filter((m) => m.version < 6));
      old.prepare("INSERT INTO projects (id, name, created_at) VALUES ('prj_1', 'old', '2026-01-01')").run();
      old.prepare(`INSERT INTO mail_domains (id, project_id, name, dkim_selector, dkim_private_key, dkim_public_key, verification_token, created_at)
        VALUES ('dom_1', 'prj_1', 'old.test', 'platform', ?, 'pub', 'tok', '2026-01-01')`).run(pem);
      old.close();
      expect(databaseBytes(dir)).toContain("PRIVATE KEY");

      const db = openDatabase(dir);
      const repo = new SqliteMailDomainRepository(db, new SecretBox(loadServerKey(dir)), new EventOutbox(db, new JobQueue(db, systemClock), systemClock));
      expect((await repo.getByName("prj_1", "old.test"))!.dkimPrivateKey).toBe(pem);
      db.close();
      expectNoPem(databaseBytes(dir), pem);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
