// DKIM private keys are sealed with the server key at rest (issue 17 item 9): the database file
// holds no PEM and callers still get the PEM.
import { createPublicKey } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startTestPlatform } from "../test/harness.ts";

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

});
