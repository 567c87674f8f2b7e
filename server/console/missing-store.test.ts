// The console on the wrong store (issue 42 item 5, decision OP5): a typo in DATA_DIR, or a
// DATABASE_URL of an empty database, is refused with one line instead of creating a new empty store
// and answering "(none)"; `store init` is the one command that creates it. Run as a user runs it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startPostgres, type PostgresCluster } from "../../test/support/postgres.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "missing-store-"));
let cluster: PostgresCluster | undefined;
afterAll(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function admin(env: Record<string, string>, ...args: string[]) {
  const r = spawnSync("npm", ["run", "--silent", "admin", "--", ...args], { cwd: repo, encoding: "utf8", env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? dir, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("SQLite: DATA_DIR", () => {
  it("a folder without a database is refused, and nothing is created in it", () => {
    const typo = path.join(dir, "dta");
    const r = admin({ DATA_DIR: typo }, "projects", "list");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`no database in DATA_DIR=${typo}`);
    expect(r.stderr).toContain("platform-admin store init");
    expect(r.stdout).toBe("");
    expect(existsSync(typo)).toBe(false);
  });

  it("store init creates it once; then the commands work on it", () => {
    const data = path.join(dir, "data");
    expect(admin({ DATA_DIR: data }, "store", "init")).toMatchObject({ code: 0, stdout: `created ${path.join(data, "platform.sqlite")}\n` });
    expect(admin({ DATA_DIR: data }, "store", "init")).toMatchObject({ code: 0, stdout: "the database exists already; nothing to do\n" });
    expect(admin({ DATA_DIR: data }, "projects", "create", "Acme")).toMatchObject({ code: 0 });
    expect(admin({ DATA_DIR: data }, "projects", "list").stdout).toContain("Acme");
  });
});

describe("PostgreSQL: DATABASE_URL", () => {
  it("an empty database is refused until store init", async () => {
    cluster = await startPostgres();
    const url = await cluster.newDatabase();
    const env = { DATABASE_URL: url, PLATFORM_SERVER_KEY: Buffer.alloc(32, 7).toString("base64"), DATA_DIR: path.join(dir, "pg") };
    const r = admin(env, "projects", "list");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("has no platform schema");
    expect(r.stderr).not.toContain(url);
    expect(admin(env, "store", "init")).toMatchObject({ code: 0, stdout: "created the platform schema at DATABASE_URL\n" });
    expect(admin(env, "projects", "list")).toMatchObject({ code: 0 });
  });
});
