// The README's first command, exactly as a new user runs it: `npm start` in a fresh clone (no
// ./data, no DATA_DIR, no server key, no config file), with nothing set but free ports. Every other
// test hands the server a prepared data folder, which is how a start-up that could not create
// ./data went unnoticed (issue 27 item 0).
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, symlinkSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const clone = mkdtempSync(path.join(tmpdir(), "fresh-clone-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, "SIGKILL");
  rmSync(clone, { recursive: true, force: true });
});

/** A folder that looks like `git clone` + `npm install`: the tracked top-level entries and node_modules, nothing else. */
function freshClone(): string {
  const tracked = execFileSync("git", ["ls-files"], { cwd: repo, encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((f) => f.split("/")[0]);
  for (const entry of new Set([...tracked, "node_modules"]))
    symlinkSync(path.join(repo, entry), path.join(clone, entry));
  return clone;
}

/** `npm start` with only the ports chosen; resolves with what it printed once the HTTP line is out. */
function npmStart(cwd: string): Promise<{ child: ChildProcess; out: () => string }> {
  const env = {
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? cwd,
    PORT: "0",
    DNS_PORT: "0",
    SMTP_PORT: "0",
  };
  const child = spawn("npm", ["start"], {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  return new Promise((resolve, reject) => {
    child.stdout!.on("data", () => {
      if (/^HTTP http:\/\/\S+/m.test(out)) resolve({ child, out: () => out });
    });
    child.on("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });
}

it("npm start in a fresh clone creates ./data, prints a working key and serves the API", async () => {
  const cwd = freshClone();
  expect(existsSync(path.join(cwd, "data"))).toBe(false);
  const { child, out } = await npmStart(cwd);
  const url = /^HTTP (http:\/\/\S+)/m.exec(out())![1];
  const key = /(platform_sk_[A-Za-z0-9]+)/.exec(out())?.[1];
  expect(key, out()).toBeDefined();

  const res = await fetch(`${url}/v1/mailboxes`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  expect(statSync(path.join(cwd, "data")).mode & 0o777).toBe(0o700);
  expect(statSync(path.join(cwd, "data/server.key")).mode & 0o777).toBe(0o600);

  process.kill(-child.pid!, "SIGTERM");
  await new Promise((r) => child.once("exit", r));
});
