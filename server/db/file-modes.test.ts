// The data folder and its files are readable by the server's user only (issue 17 item 6): the
// database holds key hashes, sealed secrets and DKIM keys, the folder the server key.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "../test/harness.ts";
import { openDatabase } from "./database.ts";

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
  // A write, so the WAL and shared-memory files exist.
  await p.newTenant("modes");
});
afterAll(async () => {
  await p?.stop();
});

describe("file modes of a new data folder", () => {
  it("folder 0700; database, -wal, -shm and server.key 0600", () => {
    expect(mode(p.dataDir)).toBe("700");
    for (const name of ["platform.sqlite", "platform.sqlite-wal", "platform.sqlite-shm", "server.key"]) {
      expect({ name, mode: mode(path.join(p.dataDir, name)) }).toEqual({ name, mode: "600" });
    }
  });
});

describe("an older data folder", () => {
  const root = mkdtempSync(path.join(tmpdir(), "modes-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("is narrowed when opened", () => {
    const dir = path.join(root, "data");
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    openDatabase(dir).close();
    const file = path.join(dir, "platform.sqlite");
    chmodSync(file, 0o644);
    writeFileSync(`${file}-wal`, "");
    chmodSync(`${file}-wal`, 0o644);
    const db = openDatabase(dir);
    db.exec("CREATE TABLE t (x)");
    expect(mode(dir)).toBe("700");
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(mode(f)).toBe("600");
    db.close();
  });
});
