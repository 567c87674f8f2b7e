// The README's first command, exactly as a new user runs it: `npm start` in a fresh clone (no
// ./data, no DATA_DIR, no server key, no config file), with nothing set but free ports. Every other
// test hands the server a prepared data folder, which is how a start-up that could not create
// ./data went unnoticed (issue 27 item 0).
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const clones: string[] = [];
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, "SIGKILL");
  for (const clone of clones) rmSync(clone, { recursive: true, force: true });
});

/** A folder that looks like `git clone` + `npm install`: the tracked top-level entries and node_modules, nothing else. */
function freshClone(): string {
  const clone = mkdtempSync(path.join(tmpdir(), "fresh-clone-"));
  clones.push(clone);
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

/** The README's fenced `sh` blocks under a heading, in order. */
function readmeBlocks(heading: string): string[] {
  const readme = readFileSync(path.join(repo, "README.md"), "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `README has no "## ${heading}" section`).toBeGreaterThan(0);
  const section = readme.slice(start + 1).split(/\n## /)[0];
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** Runs a shell script with bash (curl and jq as a reader has them); its standard output. */
function bash(script: string): string {
  return execFileSync("bash", ["-euo", "pipefail", "-c", script], { encoding: "utf8" });
}

it("the README's first mail: a fresh npm start delivers it to the demo mailbox, readable by the API and in webmail", async () => {
  const cwd = freshClone();
  const { child, out } = await npmStart(cwd);
  const url = /^HTTP (http:\/\/\S+)/m.exec(out())![1];
  const key = /(platform_sk_[A-Za-z0-9]+)/.exec(out())![1];
  // A new user tries the start banner's commands first, then follows the README: neither may
  // take what the other needs (the banner's mailbox was the README's alice@, whose create got 409).
  const tryBlock = /\nTry:\n([\s\S]*?)\n\n/.exec(out())?.[1];
  expect(tryBlock, out()).toBeDefined();
  const tried = bash(tryBlock!);
  expect(tried).toMatch(/"email":"team@example\.test"/);
  const [send, read] = readmeBlocks("Your first mail");
  // The reader's own values in place of the README's placeholders; nothing else changes.
  const setup = send
    .replace("KEY=platform_sk_...", `KEY=${key}`)
    .replace("API=http://127.0.0.1:8080", `API=${url}`);
  expect(setup).not.toBe(send);
  const ids = bash(`${setup}\necho "$MAILBOX $SENT"`).trim().split(/\s+/).slice(-2);
  expect(ids[0]).toMatch(/^mbx_/);
  expect(ids[1]).toMatch(/^msg_/);

  // Delivery runs on the job queue: ask until the message has left `sent` (no time limit here),
  // a little apart and waiting out a 429 as a reader would: a tight loop spent the demo key's 120
  // requests a minute before a slow first delivery was done.
  let status = "sent";
  while (status === "sent") {
    await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`${url}/v1/mail/messages/${ids[1]}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = (await res.json()) as { message: { status: string } };
    if (res.status === 429) {
      await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after")) * 1000));
      continue;
    }
    expect(res.status, JSON.stringify(body)).toBe(200);
    status = body.message.status;
  }
  const lines = bash(`${setup.split("\nMAILBOX=")[0]}\nMAILBOX=${ids[0]}\nSENT=${ids[1]}\n${read}`)
    .trim()
    .split("\n");
  expect(lines).toEqual([
    "delivered",
    "My first mail",
    expect.stringMatching(/^http:\/\/\S+\/webmail\/login\?token=/),
  ]);

  // The receiving side's SPF check of the demo's own mail passes (issue 41 item 4, decision S18):
  // the demo's mail host resolves, through the platform's own DNS, to the address it sent from.
  const auth = { headers: { authorization: `Bearer ${key}` } };
  const stored = (await (await fetch(`${url}/v1/mailboxes/${ids[0]}/messages`, auth)).json()) as {
    messages: { id: string }[];
  };
  const raw = await (
    await fetch(`${url}/v1/mailboxes/${ids[0]}/messages/${stored.messages[0].id}/raw`, auth)
  ).text();
  const results = /^Authentication-Results:.*(?:\r\n[ \t].*)*/im.exec(raw)?.[0];
  expect(results, raw.slice(0, 2000)).toMatch(/\bspf=pass\b/);
  expect(results).toMatch(/\bdkim=pass\b/);
  expect(results).toMatch(/\bdmarc=pass\b/);

  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(lines[2]);
    expect(await page.textContent("#mailbox")).toBe("alice@example.test");
    expect(await page.locator("tr.message td:nth-child(2)").allTextContents()).toEqual([
      "My first mail",
    ]);
    await page.click("text=My first mail");
    expect(await page.textContent("#body")).toContain("Hello, Alice.");
  } finally {
    await browser.close();
  }
  process.kill(-child.pid!, "SIGTERM");
  await new Promise((r) => child.once("exit", r));
});
