// A write acknowledged with 200 survives kill -9 of the server process and a restart.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { apiFor } from "./test/harness.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "durability-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Starts `npm start`'s entry point and resolves with its printed URL (and key, on first start). */
function start(): Promise<{ child: ChildProcess; url: string; key?: string }> {
  const child = spawn(process.execPath, [path.resolve("server/main.ts")], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", DNS_PORT: "0", SMTP_PORT: "0", LOG_LEVEL: "error" },
    stdio: ["ignore", "pipe", "pipe"],
  });
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

it("keeps a committed mailbox and DNS record across kill -9", async () => {
  const first = await start();
  expect(first.key).toBeDefined();
  const api = apiFor(first.url, first.key);
  const created = await api("POST", "/v1/mailboxes", { name: "durable", domain: "example.test", password: "correct horse" });
  expect(created.status).toBe(200);
  const record = await api("POST", "/v1/dns/example.test/records", { type: "A", name: "kept", data: "192.0.2.77" });
  expect(record.status).toBe(200);

  const exited = new Promise((r) => first.child.once("exit", r));
  first.child.kill("SIGKILL");
  await exited;

  const second = await start();
  expect(second.key).toBeUndefined(); // not a first start: no second demo key
  const again = apiFor(second.url, first.key);
  const list = await again("GET", "/v1/mailboxes");
  expect(list.body.mailboxes).toContainEqual(expect.objectContaining({ id: created.body.id, email: "durable@example.test" }));
  const records = await again("GET", "/v1/dns/example.test/records");
  expect(records.body.records).toContainEqual(expect.objectContaining({ id: record.body.id, data: "192.0.2.77" }));
  second.child.kill("SIGTERM");
});
