// No secret in the log of a real `npm start` (issue 17 item 5): the server runs as its own
// process, is driven with every kind of secret the API hands out or takes, and its output is
// grepped. The demo key is printed once on purpose in the first-start banner (plain text, not a
// log line); every JSON log line must hold none of them.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactText, redactUrl } from "./log-redaction.ts";

const root = path.resolve(import.meta.dirname, "../..");
let output = "";
let dataDir: string;
const secrets: Record<string, string> = {};

async function waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
  for (let i = 0; i < 600; i++) {
    const m = output.match(pattern);
    if (m) return m;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server output never matched ${pattern}:\n${output}`);
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "log-redaction-"));
  const child = spawn(path.join(root, "node_modules/.bin/node"), ["server/main.ts"], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: "0", DNS_PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", PLATFORM_CONFIG: "", DEMO: "on" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  try {
    const base = (await waitFor(/^HTTP (http:\/\/\S+)/m))[1];
    const key = (await waitFor(/^\s+(platform_sk_\S+)$/m))[1];
    secrets.key = key;
    const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(base + url, {
        method,
        redirect: "manual",
        headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect((await call("POST", "/v1/mailboxes", { name: "alice", domain: "example.test", password: "correct horse battery" })).status).toBe(200);
    const link = (await (await call("POST", "/v1/webmail/login-link", { mailbox: "alice@example.test" })).json()) as { url: string };
    secrets.loginToken = new URL(link.url).searchParams.get("token")!;
    const login = await fetch(link.url, { redirect: "manual" });
    const cookie = login.headers.get("set-cookie")!.split(";")[0];
    secrets.session = cookie.split("=")[1];
    expect((await fetch(`${base}/webmail`, { headers: { cookie } })).status).toBe(200);
    const hook = (await (await call("POST", "/v1/webhooks", { url: "https://hooks.example.org/h" })).json()) as { secret: string };
    secrets.webhookSecret = hook.secret;
    // Secrets where they do not belong: in a query string, and a key that is not ours.
    await call("GET", `/v1/mailboxes?api_key=${key}&token=${secrets.loginToken}`);
    secrets.foreignBearer = "platform_sk_ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ";
    await call("GET", "/v1/mailboxes", undefined, { authorization: `Bearer ${secrets.foreignBearer}` });
    await call("GET", `/webmail/login?token=${secrets.loginToken}`);
    // The recipient's side of a sent message: its open pixel, click and one-click unsubscribe
    // tokens, read from the stored message as the relay would send them, then used.
    const sent = (await (await call("POST", "/v1/mail/send", {
      from: "news@example.test", to: "reader@example.test", subject: "Sale", stream: "marketing",
      html: '<p><a href="https://shop.example.org/sale">Sale</a></p>', track: true, unsubscribe: true,
    })).json()) as { id: string };
    const db = new DatabaseSync(path.join(dataDir, "platform.sqlite"), { readOnly: true });
    const row = db.prepare("SELECT html_body, headers FROM sent_messages WHERE id = ?").get(sent.id) as { html_body: string; headers: string };
    db.close();
    for (const [, kind, token] of `${row.html_body} ${row.headers}`.matchAll(/\/mail\/([cou])\/([^"'<>\s]+)/g)) secrets[`${kind}Token`] = token;
    expect((await fetch(`${base}/mail/o/${secrets.oToken}`)).status).toBe(200);
    expect((await fetch(`${base}/mail/c/${secrets.cToken}`, { redirect: "manual" })).status).toBe(302);
    expect((await fetch(`${base}/mail/c/${secrets.cToken}`, { method: "HEAD", redirect: "manual" })).status).toBe(302);
    expect((await fetch(`${base}/mail/u/${secrets.uToken}`)).status).toBe(200);
    const unsubscribe = await fetch(`${base}/mail/u/${secrets.uToken}`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click",
    });
    expect(unsubscribe.status).toBe(200);
    // A token that does not verify is still a credential-shaped path: masked too.
    secrets.badToken = "msg_zzzzzzzzzzzz.0123456789abcdef";
    expect((await fetch(`${base}/mail/u/${secrets.badToken}`)).status).toBe(404);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("the log of a started server", () => {
  it("has request lines, with the login URLs' tokens masked", () => {
    const lines = output.split("\n").filter((l) => l.startsWith("{"));
    expect(lines.length).toBeGreaterThan(10);
    const urls = lines.map((l) => JSON.parse(l)).flatMap((l) => (l.req?.url ? [l.req.url as string] : []));
    expect(urls).toContain("/webmail/login?token=[REDACTED]");
    expect(urls).toContain("/v1/mailboxes?api_key=[REDACTED]&token=[REDACTED]");
    for (const kind of ["o", "c", "u"]) expect(urls).toContain(`/mail/${kind}/[REDACTED]`);
  });

  it.each(["key", "loginToken", "session", "webhookSecret", "foreignBearer", "oToken", "cToken", "uToken", "badToken"])("holds no %s in any log line", (name) => {
    const value = secrets[name];
    expect(value).toBeTruthy();
    const leaking = output.split("\n").filter((l) => l.startsWith("{") && l.includes(value));
    expect(leaking).toEqual([]);
  });

  it("the demo key appears only in the first-start banner, so the grep above could see it", () => {
    const lines = output.split("\n").filter((l) => l.includes(secrets.key));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((l) => l.startsWith("{"))).toEqual([]);
  });
});

describe("redaction of text nobody planned for", () => {
  it.each([
    ["an API key in a message", "refused platform_sk_AbC123 at once", "refused [REDACTED] at once"],
    ["a bearer header quoted", '{"msg":"auth Bearer abc.def"}', '{"msg":"auth [REDACTED]"}'],
    ["a bot token", "GET /bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe", "GET /bot[REDACTED]/getMe"],
    ["a PEM key", "k=-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----", "k=[REDACTED]"],
    ["a password in a query", "url=/x?password=hunter2&a=1", "url=/x?password=[REDACTED]&a=1"],
    ["a click URL quoted", "see https://mail.example/mail/c/msg_abc.1.x7k2?utm=1 now", "see https://mail.example/mail/c/[REDACTED]?utm=1 now"],
    ["an unsubscribe path", '{"url":"/mail/u/msg_abc.q9"}', '{"url":"/mail/u/[REDACTED]"}'],
    ["an open path with an escaped slash", '{"url":"\\/mail\\/o\\/msg_abc.q9"}', '{"url":"\\/mail\\/o\\/[REDACTED]"}'],
    ["a VERP address", '{"from":"bounces+msg_abc.0123456789abcdef@shop.example","copy":"bounces+msg_abc.c.0123456789abcdef@shop.example"}', '{"from":"bounces+msg_abc.[REDACTED]@shop.example","copy":"bounces+msg_abc.c.[REDACTED]@shop.example"}'],
  ])("%s", (_n, given, want) => {
    expect(redactText(given)).toBe(want);
  });

  it("keeps other query parameters", () => {
    expect(redactUrl("/v1/x?limit=5&Token=abc&offset=2")).toBe("/v1/x?limit=5&Token=[REDACTED]&offset=2");
  });
});
