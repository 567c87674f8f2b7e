// server/README.md's deployment block, run as written for two instances on one PostgreSQL: only
// the reader's own values change (database URL, key file, addresses, ports, data folder), each
// substitution checked so a README that drifts fails here. The console then creates a project, a
// key and a zone on the shared database as the README's console block shows; a record written
// through one instance is read through the other's API and answered by the other's DNS server.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePort } from "../../conformance/scripts/free-port.ts";
import { queryUdp } from "../../server/dns/wire-client.ts";
import { startPostgres, type PostgresCluster } from "../support/postgres.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const children: ChildProcess[] = [];
let cluster: PostgresCluster;
let databaseUrl: string;
let dir: string;
let keyFile: string;

beforeAll(async () => {
  cluster = await startPostgres();
  databaseUrl = await cluster.newDatabase();
  dir = mkdtempSync(path.join(tmpdir(), "deployment-"));
  keyFile = path.join(dir, "server.key");
  writeFileSync(keyFile, `${randomBytes(32).toString("base64")}\n`, { mode: 0o600 });
});
afterAll(async () => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, "SIGKILL");
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The README section's fenced `lang` blocks, in order. */
function blocks(heading: string, lang: string): string[] {
  const readme = readFileSync(path.join(repo, "server/README.md"), "utf8");
  const start = readme.indexOf(`\n## ${heading}\n`);
  expect(start, `server/README.md has no "## ${heading}" section`).toBeGreaterThan(0);
  const section = readme.slice(start + 1).split(/\n## /)[0];
  return [...section.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))].map(
    (m) => m[1],
  );
}

/** `text` with each [from, to] replaced; fails when the README no longer has `from`. */
function substitute(text: string, pairs: [string, string][]): string {
  for (const [from, to] of pairs) {
    expect(text, `the README block no longer contains ${from}`).toContain(from);
    text = text.replace(from, to);
  }
  return text;
}

interface Instance {
  url: string;
  dnsPort: number;
}

async function startInstance(block: string, n: number): Promise<Instance> {
  const [port, dnsPort, smtpPort] = [await freePort(), await freePort(), await freePort()];
  const script = substitute(block, [
    ["postgres://platform:secret@db.internal:5432/platform", databaseUrl],
    ["/etc/platform/server.key", keyFile],
    [
      "HOST=10.0.0.11 PORT=8080 DNS_PORT=53 SMTP_PORT=25 DATA_DIR=/var/lib/platform",
      `HOST=127.0.0.1 PORT=${port} DNS_PORT=${dnsPort} SMTP_PORT=${smtpPort} DATA_DIR=${path.join(dir, `data${n}`)}`,
    ],
  ]);
  // Only what a fresh shell has: no variable of the test runner reaches the instance.
  const child = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd: repo,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? dir },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (c) => (out += c));
  child.stderr!.on("data", (c) => (out += c));
  // It prints PUBLIC_URL (the proxy's address, kept as the README has it); it listens on PORT.
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", () => {
      if (/^HTTP https:\/\/api\.example\.com/m.test(out)) resolve();
    });
    child.on("exit", (code) => reject(new Error(`instance ${n} exited with ${code}:\n${out}`)));
  });
  return { url: `http://127.0.0.1:${port}`, dnsPort };
}

/** The console, as the README's console block runs it, on the shared database. */
function admin(args: string[]): string {
  return execFileSync("npm", ["run", "--silent", "admin", "--", ...args], {
    cwd: repo,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? dir,
      DATABASE_URL: databaseUrl,
      PLATFORM_SERVER_KEY: readFileSync(keyFile, "utf8").trim(),
    },
  });
}

it("two instances started by the README's block share one PostgreSQL: a record written through one is served by the other", async () => {
  const [block] = blocks("Deployment: several instances on one PostgreSQL", "sh");
  const a = await startInstance(block, 1);
  const b = await startInstance(block, 2);

  const project = /prj_\w+/.exec(admin(["projects", "create", "Deploy"]))![0];
  const key = /platform_sk_\w+/.exec(
    admin(["keys", "create", "--project", project, "--scopes", "all"]),
  )![0];
  admin(["zones", "create", "deploy.test", "--project", project]);

  const api = (base: string, method: string, route: string, body?: object) =>
    fetch(`${base}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body: body && JSON.stringify(body),
    });
  const created = await api(a.url, "POST", "/v1/dns/deploy.test/records", {
    type: "A",
    name: "www",
    data: "192.0.2.7",
    ttl: 300,
  });
  expect(created.status).toBe(200);
  const listed = (await (await api(b.url, "GET", "/v1/dns/deploy.test/records")).json()) as {
    records: { name: string; type: string; data: string }[];
  };
  expect(listed.records).toContainEqual(expect.objectContaining({ type: "A", data: "192.0.2.7" }));

  // Instance B's DNS server hears of the zone change (NOTIFY) and answers the new record.
  let answer: string[] = [];
  while (!answer.includes("192.0.2.7")) {
    const reply = await queryUdp(b.dnsPort, { name: "www.deploy.test", type: "A" });
    answer = (reply.answers ?? []).map((r) => String((r as { data?: unknown }).data));
  }
  expect(answer).toEqual(["192.0.2.7"]);
});
