// Where the server key comes from: the environment, or a file created once in DATA_DIR; on a
// shared store (PostgreSQL) only from the environment (decision P6).
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadServerKey } from "./server-key.ts";

const dirs: string[] = [];
const folder = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "server-key-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("loadServerKey", () => {
  it("creates the key once in the data folder, readable by its owner only, and reads the same key after", () => {
    const dir = folder();
    const first = loadServerKey(dir, {});
    expect(first).toHaveLength(32);
    expect(statSync(path.join(dir, "server.key")).mode & 0o777).toBe(0o600);
    expect(loadServerKey(dir, {}).equals(first)).toBe(true);
  });

  it("takes PLATFORM_SERVER_KEY before any file, and refuses one of the wrong length", () => {
    const key = randomBytes(32);
    const dir = folder();
    expect(loadServerKey(dir, { PLATFORM_SERVER_KEY: key.toString("base64") }).equals(key)).toBe(true);
    expect(existsSync(path.join(dir, "server.key"))).toBe(false);
    expect(() => loadServerKey(dir, { PLATFORM_SERVER_KEY: randomBytes(16).toString("base64") })).toThrow("must hold 32 bytes");
  });

  it("on a shared store refuses to start without PLATFORM_SERVER_KEY and creates no file", () => {
    const dir = folder();
    expect(() => loadServerKey(dir, {}, { shared: true })).toThrow("PLATFORM_SERVER_KEY is not");
    expect(readdirSync(dir)).toEqual([]);
    const key = randomBytes(32);
    expect(loadServerKey(dir, { PLATFORM_SERVER_KEY: key.toString("base64") }, { shared: true }).equals(key)).toBe(true);
  });
});
