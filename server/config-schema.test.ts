// Settings that are checked (issue 42 item 4, decision OP4): the server started as `npm start`
// starts it, with a config file or a setting an operator gets wrong. Each mistake stops the start
// with one line naming the setting and what it takes, before anything listens; none is ignored.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startToExit, type StartRun } from "./test/start-to-exit.ts";
import { closest, configFileProblem } from "./config-schema.ts";

const dir = mkdtempSync(path.join(tmpdir(), "config-schema-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = (env: Record<string, string>) => startToExit(path.join(dir, "data"), env);

let files = 0;
function configFile(settings: unknown): string {
  const file = path.join(dir, `config-${++files}.json`);
  writeFileSync(file, JSON.stringify(settings));
  return file;
}

function expectOneLine(run: StartRun, ...parts: (string | RegExp)[]) {
  expect(run.code, run.stderr).toBe(1);
  const lines = run.stderr.trim().split("\n");
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^platform: /);
  for (const part of parts) expect(lines[0]).toContain(part);
  // Refused before anything listened or was announced.
  expect(run.stdout).not.toMatch(/listening|^HTTP /m);
}

describe("a config file the server does not understand stops the start with one line", () => {
  it.each([
    ["an unknown key", { typoKey: 1 }, ['"typoKey" is not a setting']],
    ["a near miss, with the closest known key", { limits: { mailbox: 5 } }, ['"limits.mailbox" is not a setting', 'did you mean "limits.mailboxes"?']],
    ["a near miss at the top", { dataDri: "x" }, ['did you mean "dataDir"?']],
    ["a word where a port goes", { port: "eighty" }, ['"port" must be a whole number, got "eighty"']],
    ["a negative count", { smtp: { maxRecipients: -1 } }, ['"smtp.maxRecipients" must be a whole number from 1 to 100000, got -1']],
    ["a word where a cap goes", { limits: { mailboxes: "many" } }, ['"limits.mailboxes" must be a whole number, got "many"']],
    ["a string for a flag", { demo: "yes" }, ['"demo" must be true or false, got "yes"']],
    ["an unknown issuer", { certificates: { issuer: "letsencrypt" } }, ['"certificates.issuer" must be one of "local", "acme"']],
    ["a preset without a name", { messenger: { presets: [{ id: "p1" }] } }, ['"messenger.presets.0.name" is required']],
    ["a preset whose id the server refuses", { messenger: { presets: [{ id: "bad id!", name: "x" }] } }, ["messenger.presets:", 'preset id "bad id!"']],
  ])("%s", async (_what, settings, parts) => {
    expectOneLine(await start({ PLATFORM_CONFIG: configFile(settings) }), ...parts);
  });
});

describe("the environment and the machine", () => {
  it("a DATA_DIR that is a file", async () => {
    const file = path.join(dir, "not-a-folder");
    writeFileSync(file, "x");
    expectOneLine(await start({ DATA_DIR: file }), `DATA_DIR=${file} is a file`);
  });

  it.each([
    ["TRUSTED_PROXIES", "nginx.internal", "TRUSTED_PROXIES must list proxy addresses or networks"],
    ["SMTP_PROXY_PROTOCOL_FROM", "10.0.0.0/24", "SMTP_PROXY_PROTOCOL_FROM must list the balancers' IP addresses"],
  ])("%s=%s", async (name, value, part) => {
    expectOneLine(await start({ [name]: value }), part);
  });

  it("a busy SMTP port stops the start before HTTP listens or anything is announced", async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      // LOG_LEVEL=info: the HTTP listener's own "listening" line would show if it had bound.
      expectOneLine(await start({ SMTP_PORT: String(port), LOG_LEVEL: "info" }), `SMTP_PORT=${port}`, "already in use");
    } finally {
      blocker.close();
    }
  });
});

describe("the schema's answers", () => {
  it("accepts every setting the server documents, with its default's type", async () => {
    const { defaults } = await import("./config.ts");
    const { smarthost: _none, ...relay } = defaults.relay;
    expect(configFileProblem({ ...defaults, relay }, "f.json")).toBeUndefined();
  });

  it.each([
    ["mailboxs", ["mailboxes", "groups"], "mailboxes"],
    ["MAILBOXES", ["mailboxes"], "mailboxes"],
    ["zzz", ["mailboxes", "groups"], undefined],
    ["ab", ["xyz"], undefined],
  ])("closest(%s)", (key, known, want) => {
    expect(closest(key, known)).toBe(want);
  });
});
