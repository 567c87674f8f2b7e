// With DATABASE_URL set, the server and the console refuse to start while an area still runs on
// SQLite only, naming the missing areas: never a silent mix of backends (decision P1).
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { defaults, loadConfig } from "../../config.ts";
import { startPlatform } from "../../platform.ts";
import { assertPostgresComplete, missingOnPostgres } from "./coverage.ts";

describe("DATABASE_URL while areas are missing on PostgreSQL", () => {
  it("is read from the environment", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://db.internal/platform" }, tmpdir()).databaseUrl).toBe("postgres://db.internal/platform");
    expect(loadConfig({}, tmpdir()).databaseUrl).toBe("");
  });

  it("stops the server before it opens anything, naming every missing area", async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "pg-missing-")), "data");
    try {
      const start = startPlatform({ ...defaults, dataDir, port: 0, databaseUrl: "postgres://127.0.0.1:1/none", demo: false });
      await expect(start).rejects.toThrow("DATABASE_URL is set, but these areas have no PostgreSQL implementation yet");
      for (const area of missingOnPostgres) await expect(start).rejects.toThrow(area);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      rmSync(path.dirname(dataDir), { recursive: true, force: true });
    }
  });

  it("stops the console the same way", () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "pg-missing-"));
    try {
      const r = spawnSync(process.execPath, ["server/console/platform-admin.ts", "projects", "list"], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "postgres://127.0.0.1:1/none" },
        encoding: "utf8",
      });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain("no PostgreSQL implementation yet");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("passes once nothing is missing", () => {
    expect(() => assertPostgresComplete([])).not.toThrow();
  });
});
