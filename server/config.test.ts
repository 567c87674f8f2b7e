// Configuration from the environment: on/off flags in every spelling the README allows, and a
// clear refusal of anything else (a conformance run once started with DEMO=off creating the demo).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

const cwd = mkdtempSync(path.join(tmpdir(), "config-")); // no platform.config.json here

describe("loadConfig flags", () => {
  it.each([
    ["on", true], ["off", false], ["1", true], ["0", false], ["true", true], ["false", false], ["yes", true], ["no", false], ["OFF", false],
  ])("DEMO=%s is %s, and so are the other flags", (value, expected) => {
    const c = loadConfig({ DEMO: value, ALLOW_HTTP_LOOPBACK_WEBHOOKS: value, DNS_ENABLED: value }, cwd);
    expect([c.demo, c.allowHttpLoopbackWebhooks, c.dns.enabled]).toEqual([expected, expected, expected]);
  });

  it("refuses a value that is neither on nor off", () => {
    expect(() => loadConfig({ DEMO: "of" }, cwd)).toThrow(/DEMO must be on or off/);
  });

  it("defaults: demo on, loopback webhooks off", () => {
    const c = loadConfig({}, cwd);
    expect([c.demo, c.allowHttpLoopbackWebhooks]).toEqual([true, false]);
  });
});

describe("loadConfig store", () => {
  it("reads DATABASE_URL from the environment; without it the server runs on SQLite", () => {
    expect(loadConfig({ DATABASE_URL: "postgres://db.internal/platform" }, cwd).databaseUrl).toBe("postgres://db.internal/platform");
    expect(loadConfig({}, cwd).databaseUrl).toBe("");
  });
});
