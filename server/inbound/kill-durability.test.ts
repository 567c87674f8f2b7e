// Every message the listener answered 250 to is there after kill -9 of the server process in
// the middle of a stream of deliveries over ten connections, and a restart.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, expect, it } from "vitest";
import { apiFor } from "../test/harness.ts";
import { smtpTransport } from "../test/smtp.ts";

const dataDir = mkdtempSync(path.join(tmpdir(), "inbound-kill-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

function start(): Promise<{ child: ChildProcess; url: string; smtpPort: number; key?: string }> {
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
      const smtp = /SMTP \S+:(\d+)/.exec(out)?.[1];
      if (url && smtp) resolve({ child, url, smtpPort: Number(smtp), key: /(platform_sk_[A-Za-z0-9]+)/.exec(out)?.[1] });
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

it("loses none of the messages answered 250 when killed with -9 mid-stream", async () => {
  const first = await start();
  const api = apiFor(first.url, first.key);
  const mailbox = (await api("POST", "/v1/mailboxes", { name: "durable", domain: "example.test", password: "correct horse" })).body.id;

  const acknowledged: string[] = [];
  const killAfter = 150;
  const exited = new Promise((r) => first.child.once("exit", r));
  let n = 0;
  // Ten connections sending until the server dies under them.
  await Promise.all(Array.from({ length: 10 }, async () => {
    const transport = smtpTransport(first.smtpPort, { pool: false });
    try {
      while (first.child.exitCode === null && first.child.signalCode === null) {
        const id = `kill-${n++}@sender.test`;
        try {
          await transport.sendMail({ from: "s@sender.test", to: "durable@example.test", subject: id, text: "x".repeat(2000), messageId: `<${id}>` });
        } catch {
          break; // the server is gone
        }
        acknowledged.push(id);
        if (acknowledged.length === killAfter) first.child.kill("SIGKILL");
      }
    } finally {
      transport.close();
    }
  }));
  await exited;
  expect(acknowledged.length).toBeGreaterThanOrEqual(killAfter);

  const second = await start();
  const again = apiFor(second.url, first.key);
  const page = (await again("GET", `/v1/mailboxes/${mailbox}/messages?limit=500`)).body;
  const stored = new Set((page.messages as { rfcMessageId: string }[]).map((m) => m.rfcMessageId));
  expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  // usedBytes agrees with what is stored, also after the kill.
  const listed = (await again("GET", "/v1/mailboxes")).body.mailboxes.find((m: { id: string }) => m.id === mailbox);
  const db = new DatabaseSync(path.join(dataDir, "platform.sqlite"), { readOnly: true });
  const { bytes } = db.prepare("SELECT SUM(c.size) AS bytes FROM mailbox_messages m JOIN message_contents c ON c.id = m.content_id WHERE m.mailbox_id = ?").get(mailbox) as { bytes: number };
  db.close();
  expect(listed.usedBytes).toBe(bytes);
  second.child.kill("SIGTERM");
});
