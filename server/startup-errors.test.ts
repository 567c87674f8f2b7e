// A user's mistake at start-up is one line naming the setting (issue 27 item 5): a port in use
// names PORT, SMTP_PORT or DNS_PORT and its value; a bad value names the variable and what it
// takes. The server runs as `npm start` runs it, and no stack trace reaches the terminal.
import { spawn } from "node:child_process";
import dgram from "node:dgram";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startToExit } from "./test/start-to-exit.ts";

const entry = path.resolve(import.meta.dirname, "main.ts");
const dataDir = mkdtempSync(path.join(tmpdir(), "startup-errors-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const start = (env: Record<string, string>) => startToExit(dataDir, env);

function expectOneLine(run: { code: number | null; stderr: string }, ...parts: (string | RegExp)[]) {
  expect(run.code, run.stderr).toBe(1);
  const lines = run.stderr.trim().split("\n");
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^platform: /);
  for (const part of parts) expect(lines[0]).toMatch(part);
}

describe("a port in use names its setting and value", () => {
  it.each(["PORT", "SMTP_PORT"])("%s (TCP)", async (name) => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      expectOneLine(await start({ [name]: String(port) }), `${name}=${port}`, "already in use");
    } finally {
      blocker.close();
    }
  });

  it("DNS_PORT (UDP)", async () => {
    const blocker = dgram.createSocket("udp4");
    await new Promise<void>((r) => blocker.bind(0, "127.0.0.1", r));
    const port = blocker.address().port;
    try {
      expectOneLine(await start({ DNS_PORT: String(port) }), `DNS_PORT=${port}`, "already in use");
    } finally {
      blocker.close();
    }
  });
});

describe("a bad value names the variable and the values it takes", () => {
  it.each([
    [{ PORT: "eighty" }, /PORT must be a port number, got eighty/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"/],
    [{ HOST: "999.1.1.1" }, /HOST must be an IP address to listen on/],
    [{ SMTP_HOST: "mail.invalid" }, /SMTP_HOST must be an IP address/],
    [{ DEMO: "maybe" }, /DEMO must be on or off/],
    [{ DLP_THREADS: "-1" }, /DLP_THREADS must be a whole number from 0 to 64/],
    [{ PUBLIC_URL: "platform.example.com" }, /PUBLIC_URL must be the http:\/\/ or https:\/\/ URL/],
    [{ RESOLVER: "dns.example:53" }, /RESOLVER must be a DNS server's IP address/],
    [{ OUTBOUND_RESOLVER: "nope" }, /OUTBOUND_RESOLVER must be a DNS server's IP address/],
    [{ MAIL_HOST: "mx_1.example" }, /MAIL_HOST must be a host name/],
    [{ CERT_ISSUER: "letsencrypt" }, /CERT_ISSUER must be local or acme/],
    [{ PLATFORM_SERVER_KEY: "c2hvcnQ=" }, /PLATFORM_SERVER_KEY must hold 32 bytes of base64/],
  ])("%o", async (env, message) => {
    expectOneLine(await start(env), message);
  });

  it("a config file that is not JSON names the file", async () => {
    const file = path.join(dataDir, "bad.json");
    writeFileSync(file, "{ port: 80 ");
    expectOneLine(await start({ PLATFORM_CONFIG: file }), `PLATFORM_CONFIG: ${file} is not a JSON object of settings`);
  });
});

it("a good configuration still starts (the checks refuse only what is wrong)", async () => {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH!, DATA_DIR: dataDir, PORT: "0", DNS_PORT: "0", SMTP_PORT: "0", DEMO: "off", HOST: "::1", PUBLIC_URL: "https://platform.example.com", OUTBOUND_RESOLVER: "[::1]:53", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (out += c));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => /^HTTP /m.test(out) && resolve());
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  child.kill("SIGTERM");
});
