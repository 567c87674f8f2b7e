// server/README.md's deployment section as an operator runs it (issue 42): the systemd unit checked
// by systemd itself, the nginx http block in front of a real `node server/main.ts` (the client's
// address through X-Forwarded-For, readiness through the proxy), the nginx stream block with the
// PROXY protocol in front of the SMTP listener, and DNS and SMTP listening on HOST. Only loopback
// addresses: a client "elsewhere" is one bound to another address of 127.0.0.0/8.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { smtpTransport } from "../../server/test/smtp.ts";
import { startNginx, startNginxStream, type Proxy } from "../support/nginx.ts";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";
import { requireTool } from "../support/system-tools.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const readme = readFileSync(path.join(repo, "server/README.md"), "utf8");
const dir = mkdtempSync(path.join(tmpdir(), "operators-"));
const running: (ServerProcess | Proxy)[] = [];
afterAll(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function server(env: Record<string, string>): Promise<ServerProcess & { key: string }> {
  const s = await startServerProcess({
    DATA_DIR: path.join(dir, `data-${running.length}`),
    DEMO: "on",
    ...env,
  });
  running.push(s);
  return { ...s, key: /(platform_sk_[A-Za-z0-9]+)/.exec(s.output())?.[1] ?? "" };
}

/** A GET from a client bound to `from`, with extra headers; answers status, body. */
function get(
  url: string,
  from: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { localAddress: from, headers }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
  });
}

async function api(s: { url: string; key: string }, method: string, url: string, body?: unknown) {
  const res = await fetch(`${s.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${s.key}`,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return {
    status: res.status,
    body: res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text(),
  };
}

/** The remoteAddress of the request-log lines for `url` the server printed. */
const loggedAddresses = (s: ServerProcess, url: string) =>
  s
    .output()
    .split("\n")
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { req?: { url?: string; remoteAddress?: string } };
        return entry.req?.url === url ? [entry.req.remoteAddress] : [];
      } catch {
        return [];
      }
    });

it("the systemd unit passes systemd-analyze verify, with no warning", async () => {
  const tool = requireTool("systemd-analyze (systemd)", "/usr/bin/systemd-analyze");
  const unit = /```ini\n(# \/etc\/systemd\/system\/platform\.service\n[\s\S]*?)```/.exec(
    readme,
  )?.[1];
  expect(unit, "server/README.md has no ```ini block with the platform.service unit").toBeDefined();
  expect(unit).toMatch(/^AmbientCapabilities=CAP_NET_BIND_SERVICE$/m);
  expect(unit).toMatch(/^User=(?!root)\w+$/m);
  // Only the install folder is this checkout (ExecStart must exist for systemd to accept it).
  const file = path.join(dir, "platform.service");
  writeFileSync(file, unit!.replaceAll("/opt/platform-api", repo));
  const { stderr } = await promisify(execFile)(tool, ["verify", "--man=no", file]);
  expect(stderr).toBe("");
});

describe("behind the README's nginx http block", () => {
  it("the client's address is the right-most hop nginx added, never one the client wrote", async () => {
    const s = await server({ TRUSTED_PROXIES: "127.0.0.1", LOG_LEVEL: "info" });
    const proxy = await startNginx([s.url]);
    running.push(proxy);
    // The client is 127.0.0.5 and forges a hop; nginx appends 127.0.0.5 and connects from 127.0.0.1.
    const res = await get(`${proxy.url}/v1/mailboxes?from=proxied`, "127.0.0.5", {
      "x-forwarded-for": "203.0.113.9",
    });
    expect(res.status).toBe(401);
    expect(loggedAddresses(s, "/v1/mailboxes?from=proxied")).toEqual(["127.0.0.5"]);
    // Straight to the server from an address that is not a trusted proxy: the header is not believed.
    await get(`${s.url}/v1/mailboxes?from=direct`, "127.0.0.6", {
      "x-forwarded-for": "203.0.113.9",
    });
    expect(loggedAddresses(s, "/v1/mailboxes?from=direct")).toEqual(["127.0.0.6"]);
  });

  it("without TRUSTED_PROXIES the header is ignored: the address is nginx's", async () => {
    const s = await server({ LOG_LEVEL: "info" });
    const proxy = await startNginx([s.url]);
    running.push(proxy);
    await get(`${proxy.url}/v1/mailboxes?from=untrusted`, "127.0.0.5", {
      "x-forwarded-for": "203.0.113.9",
    });
    expect(loggedAddresses(s, "/v1/mailboxes?from=untrusted")).toEqual(["127.0.0.1"]);
  });

  it("/healthz and /readyz answer through the proxy without a key, with no data", async () => {
    const s = await server({});
    const proxy = await startNginx([s.url]);
    running.push(proxy);
    const live = await get(`${proxy.url}/healthz`, "127.0.0.1");
    expect(live).toEqual({ status: 200, body: '{"status":"ok"}' });
    const ready = await get(`${proxy.url}/readyz`, "127.0.0.1");
    expect(ready).toEqual({ status: 200, body: '{"status":"ready"}' });
  });
});

it("behind the README's nginx stream block, the stored mail names the sender, not nginx", async () => {
  const s = await server({ SMTP_PROXY_PROTOCOL_FROM: "127.0.0.1" });
  const mailbox = await api(s, "POST", "/v1/mailboxes", {
    name: "ops",
    domain: "example.test",
    password: "correct horse battery",
  });
  expect(mailbox.status).toBe(200);
  const proxy = await startNginxStream([`127.0.0.1:${s.smtpPort}`]);
  running.push(proxy);
  const port = Number(new URL(proxy.url).port);
  // The sender is 127.0.0.7 (nodemailer binds there); nginx connects to the listener from 127.0.0.1.
  const t = smtpTransport(port, { localAddress: "127.0.0.7" });
  await t.sendMail({
    from: "sender@example.org",
    to: "ops@example.test",
    subject: "from 127.0.0.7",
    text: "hi",
  });
  t.close();
  const list = await api(s, "GET", `/v1/mailboxes/${mailbox.body.id}/messages`);
  const msg = (list.body.messages as { id: string; subject: string }[]).find(
    (m) => m.subject === "from 127.0.0.7",
  );
  expect(msg, JSON.stringify(list.body)).toBeDefined();
  const raw = await api(s, "GET", `/v1/mailboxes/${mailbox.body.id}/messages/${msg!.id}/raw`);
  expect(String(raw.body)).toMatch(/^Received: from \S+ \(\[127\.0\.0\.7\]\)/m);

  // Straight to the listener from the balancer's address without a PROXY header: refused.
  const direct = await new Promise<string>((resolve) => {
    const socket = net.connect(s.smtpPort, "127.0.0.1");
    let said = "";
    socket.on("data", (c) => (said += c));
    socket.on("close", () => resolve(said));
    socket.on("error", () => resolve(said));
    socket.write("EHLO direct.example\r\n");
    setTimeout(() => socket.end(), 2_000).unref();
  });
  expect(direct).not.toMatch(/^250[- ]/m);
});

it("DNS and SMTP listen on HOST unless told otherwise", async () => {
  const s = await server({ HOST: "127.0.0.2" });
  expect(s.output()).toMatch(/^DNS {2}127\.0\.0\.2:\d+/m);
  expect(s.output()).toMatch(/^SMTP 127\.0\.0\.2:\d+/m);
  const banner = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(s.smtpPort, "127.0.0.2");
    socket.once("data", (c) => (resolve(String(c)), socket.destroy()));
    socket.once("error", reject);
  });
  expect(banner).toMatch(/^220 /);
});
