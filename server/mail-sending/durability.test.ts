// kill -9 during a load of sends: after a restart every message whose send got a 200 reaches the
// recipient's server (a loopback sink, its MX found through the server's own DNS). The relay is
// at least once, so a message whose delivery was cut between the sink's 250 and our commit is
// delivered again; duplicates are counted and printed, never lost messages.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { simpleParser } from "mailparser";
import { afterAll, expect, it } from "vitest";
import { apiFor } from "../test/harness.ts";
import { startSmtpSink, type SmtpSink } from "../test/smtp-sink.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "mail-durability-"));
const children: ChildProcess[] = [];
let sink: SmtpSink;
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await sink?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const env = () => ({ ...process.env, DATA_DIR: dataDir, PORT: "0", DNS_PORT: "0", SMTP_PORT: "0", LOG_LEVEL: "error", RELAY_PORT: String(sink.port), RELAY_ALLOW_LOOPBACK: "on" });

function start(): Promise<{ child: ChildProcess; url: string; key?: string }> {
  const child = spawn(process.execPath, [path.resolve("server/main.ts")], { env: env(), stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const url = /HTTP (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ child, url, key: /(platform_sk_[A-Za-z0-9]+)/.exec(out)?.[1] });
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

const admin = async (...args: string[]) => (await promisify(execFile)(process.execPath, [path.resolve("server/console/platform-admin.ts"), ...args], { env: env() })).stdout;

it("every send answered 200 before kill -9 is delivered after the restart", { timeout: 180_000 }, async () => {
  sink = await startSmtpSink();
  const first = await start();
  const project = /(prj_\w+)/.exec(await admin("projects", "list"))![1];
  // The demo key allows 120 requests a minute; the load needs more.
  const key = /(platform_sk_[A-Za-z0-9]+)\s*$/.exec(await admin("keys", "create", "--project", project, "--scopes", "all", "--rate-limit", "1000000"))![1];
  const api = apiFor(first.url, key);
  await admin("zones", "create", "dest.test", "--project", project);
  expect((await api("POST", "/v1/dns/dest.test/records", { type: "MX", name: "@", data: "mx.dest.test", priority: 10 })).status).toBe(200);
  expect((await api("POST", "/v1/dns/dest.test/records", { type: "A", name: "mx", data: "127.0.0.1" })).status).toBe(200);

  // 8 clients send until the server dies; the kill comes once 150 sends were acknowledged.
  const acknowledged: string[] = [];
  const exited = new Promise((r) => first.child.once("exit", r));
  let n = 0;
  const client = async () => {
    for (;;) {
      const i = n++;
      let res;
      try {
        res = await api("POST", "/v1/mail/send", { from: "load@example.test", to: `r${i % 50}@dest.test`, subject: `load ${i}`, text: `message ${i}` });
      } catch {
        return; // the connection died with the server
      }
      if (res.status !== 200) throw new Error(`send answered ${res.status}: ${JSON.stringify(res.body)}`);
      acknowledged.push(res.body.id);
      if (acknowledged.length === 150) first.child.kill("SIGKILL");
    }
  };
  await Promise.all(Array.from({ length: 8 }, client));
  await exited;
  const deliveredBeforeKill = sink.messages.length;

  const second = await start();
  const again = apiFor(second.url, key);
  // Wait for the queue to drain: every acknowledged message reaches a final status.
  for (;;) {
    const pending = (await again("GET", "/v1/mail/messages?status=sent&limit=200")).body.messages.length + (await again("GET", "/v1/mail/messages?status=delayed&limit=200")).body.messages.length;
    if (pending === 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const seen = new Map<string, number>();
  for (const m of sink.messages) {
    const id = /^<(msg_[a-z0-9]+)@/.exec((await simpleParser(m.raw)).messageId ?? "")?.[1];
    if (id) seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const lost = acknowledged.filter((id) => !seen.has(id));
  const duplicates = [...seen.values()].reduce((d, c) => d + c - 1, 0);
  console.log(`mail durability: ${acknowledged.length} acknowledged, ${deliveredBeforeKill} delivered before kill -9, ${sink.messages.length} received in all, ${lost.length} lost, ${duplicates} duplicates`);
  expect(lost).toEqual([]);
  for (const id of acknowledged) expect((await again("GET", `/v1/mail/messages/${id}`)).body.message.status).toBe("delivered");
  second.child.kill("SIGTERM");
});
