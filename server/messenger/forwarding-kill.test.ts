// Updates the server acknowledged are not lost to kill -9: with the receiver hanging (forwards in
// flight, the rest queued), the server process is killed; the next server on the same data dir
// forwards every one of them. Real processes, real sockets, on loopback.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { apiFor } from "../test/harness.ts";
import { startBotApiEmulator } from "./test/bot-api-emulator.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "messenger-kill-"));
const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  for (const f of cleanups) await f();
  rmSync(dataDir, { recursive: true, force: true });
});

function start(apiRoot: string): Promise<{ child: ChildProcess; url: string; key?: string }> {
  const child = spawn(process.execPath, [path.resolve("server/main.ts")], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", DNS_PORT: "0", SMTP_PORT: "0", LOG_LEVEL: "error", MESSENGER_API_ROOT: apiRoot, ALLOW_HTTP_LOOPBACK_WEBHOOKS: "on" },
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

it("forwards every acknowledged update after kill -9 and a restart", async () => {
  const emulator = await startBotApiEmulator();
  cleanups.push(() => emulator.close());
  let hang = true;
  const received = new Map<string, number>();
  const hanging: ServerResponse[] = [];
  const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      if (hang) return void hanging.push(res);
      const body = Buffer.concat(chunks).toString("utf8");
      received.set(body, (received.get(body) ?? 0) + 1);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => {
    receiver.closeAllConnections();
    receiver.close(() => resolve());
  }));
  const forwardUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/updates`;

  const first = await start(emulator.url);
  const api = apiFor(first.url, first.key);
  const bot = emulator.addBot({ username: "durable_bot" });
  const added = await api("POST", "/v1/messenger/mybots", { token: bot.token });
  expect(added.status).toBe(200);
  expect((await api("POST", `/v1/messenger/mybots/${added.body.id}/webhook`, { forwardUrl })).status).toBe(200);

  const bodies: string[] = [];
  for (let i = 0; i < 20; i++) {
    const update = { update_id: 4_000_000 + i, message: { message_id: i, text: `update ${i}` } };
    expect((await emulator.deliver(bot.token, update)).status).toBe(200);
    bodies.push(JSON.stringify(update));
  }
  const exited = new Promise((r) => first.child.once("exit", r));
  first.child.kill("SIGKILL");
  await exited;
  const inFlightAtKill = hanging.length;

  hang = false;
  const second = await start(emulator.url);
  while (bodies.some((b) => !received.has(b))) await new Promise((r) => setTimeout(r, 50));
  expect([...received.keys()].sort()).toEqual([...bodies].sort());
  const duplicates = [...received.values()].reduce((n, c) => n + c - 1, 0);
  console.log(`messenger kill -9: 20 acknowledged updates, ${inFlightAtKill} in flight at the kill, all 20 forwarded after restart, ${duplicates} duplicates`);
  expect(duplicates).toBe(0);
  second.child.kill("SIGTERM");
});
