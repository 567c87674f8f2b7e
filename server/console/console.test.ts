// The console's commands on a real database, and the bin itself once, as a user runs it.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../auth/api-key.ts";
import { scopeCatalogue } from "../auth/scopes.ts";
import { openDatabase } from "../db/database.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { runCommand, UsageError } from "./commands.ts";
import { consoleStoreOn } from "./console-store.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "console-test-"));
const db = openDatabase(dataDir);
const deps = { ...consoleStoreOn(storeOnSqlite(db)), scopes: scopeCatalogue() };
const run = (line: string) => runCommand(deps, line.split(" ").filter(Boolean));
afterAll(() => {
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("platform-admin", () => {
  it.each(["--help", "-h", "help"])("prints the usage for %s", async (line) => {
    const out = await run(line);
    expect(out).toContain("projects create <name>");
    expect(out).toContain("keys create --project <id>");
  });

  it("creates a project, a key printed once and stored as a hash, lists and revokes it", async () => {
    const projectId = /(prj_\w+)/.exec(await run("projects create Acme Inc"))![1];
    expect(await run("projects list")).toContain("Acme Inc");
    const out = await run(`keys create --project ${projectId} --scopes mail:mailboxes,dns:read --rate-limit 30 --daily-quota 1000`);
    const key = /(platform_sk_[A-Za-z0-9]{32})\s*$/.exec(out)![1];
    const record = await deps.keys.findByHash(hashApiKey(key));
    expect(record).toMatchObject({ projectId, scopes: ["mail:mailboxes", "dns:read"], rateLimit: 30, dailyQuota: 1000, monthlyQuota: null });
    expect(JSON.stringify(db.prepare("SELECT * FROM api_keys").all())).not.toContain(key);
    const list = await run(`keys list --project ${projectId}`);
    expect(list).toContain(record!.id);
    expect(list).not.toContain(key);
    expect(await run(`keys revoke ${record!.id}`)).toContain("revoked");
    expect((await deps.keys.findByHash(hashApiKey(key)))!.revokedAt).not.toBeNull();
  });

  it("defaults to 120 per minute and accepts all scopes", async () => {
    const projectId = /(prj_\w+)/.exec(await run("projects create Defaults"))![1];
    const key = /(platform_sk_\w+)\s*$/.exec(await run(`keys create --project ${projectId} --scopes all`))![1];
    const record = await deps.keys.findByHash(hashApiKey(key));
    expect(record!.rateLimit).toBe(120);
    expect(record!.scopes).toHaveLength(33);
  });

  it("creates and binds zones, with the registrar flag", async () => {
    const projectId = /(prj_\w+)/.exec(await run("projects create Zones"))![1];
    await run("zones create Example.TEST --registrar-requires-data");
    expect(await deps.zones.getZone("example.test")).toMatchObject({ projectId: null, registrarRequiresData: true });
    await run(`zones bind example.test ${projectId}`);
    expect((await deps.zones.getZone("example.test"))!.projectId).toBe(projectId);
    expect(await run(`zones list --project ${projectId}`)).toContain("example.test");
  });

  it("sets the DLP policy", async () => {
    const projectId = /(prj_\w+)/.exec(await run("projects create Dlp"))![1];
    await run(`dlp set --project ${projectId} --mode block --ocr on`);
    expect(await deps.projects.get(projectId)).toMatchObject({ dlpMode: "block", dlpOcr: true });
    expect(await run(`dlp show --project ${projectId}`)).toBe(`DLP for ${projectId}: block, OCR on`);
  });

  it.each([
    ["an unknown command", "projects destroy"],
    ["an unknown project", "keys create --project prj_nope --scopes all"],
    ["an unknown scope", "keys create --project PRJ --scopes mail:everything"],
    ["a bad rate limit", "keys create --project PRJ --scopes all --rate-limit -4"],
    ["a bad DLP mode", "dlp set --project PRJ --mode loud"],
    ["a bad zone name", "zones create not_a_zone"],
    ["an unknown flag", "projects list --verbose"],
  ])("refuses %s with a clear usage error", async (_n, line) => {
    const projectId = /(prj_\w+)/.exec(await run("projects create Errors"))![1];
    await expect(run(line.replace("PRJ", projectId))).rejects.toBeInstanceOf(UsageError);
  });

  it("the bin runs on the server's data folder and exits 2 on bad input", async () => {
    const env = { ...process.env, DATA_DIR: dataDir };
    const bin = path.resolve("server/console/platform-admin.ts");
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "projects", "list"], { env });
    expect(stdout).toContain("Acme Inc");
    const failed = await promisify(execFile)(process.execPath, [bin, "keys", "revoke", "key_nope"], { env }).catch((e) => e);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain("no active key key_nope");
  });
});
