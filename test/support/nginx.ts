// nginx from Debian as a round-robin proxy in front of several server instances, the way a
// deployment on one PostgreSQL runs them (server/README.md, "Deployment"). Its configuration and
// temporary folders live in a throwaway prefix; it listens on a free loopback port only.
// A small sh watchdog stops it (and removes the prefix) when the test process's end of a pipe
// closes: on stop(), and also when the test process dies in any way, so no proxy outlives its test.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../conformance/scripts/free-port.ts";
import { stdinWatchdog } from "./stdin-watchdog.ts";
import { requireTool } from "./system-tools.ts";

const NGINX = "/usr/sbin/nginx";

const watchdog = stdinWatchdog("TERM", "NGINX_TEST_ROOT");

export interface Proxy {
  /** http://127.0.0.1:<port> (https:// with TLS), without a trailing slash. */
  url: string;
  stop(): Promise<void>;
}

const readme = path.resolve(import.meta.dirname, "../../server/README.md");

/** The ```nginx blocks of server/README.md's "Deployment" section, in order, as an operator copies them. */
export function readmeNginxBlocks(): string[] {
  return [...readFileSync(readme, "utf8").matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** The first ```nginx block: the HTTP proxy, inside nginx's `http { }`. */
export function readmeProxyBlock(): string {
  const block = readmeNginxBlocks()[0];
  if (!block) throw new Error("server/README.md has no ```nginx block");
  return block;
}

/**
 * The README's `stream { }` block (inbound SMTP through a TCP balancer) with this machine's
 * upstream servers and listen address; every other line is the README's.
 */
export function streamConfig(listen: string, upstreams: string[]): string {
  let block = readmeNginxBlocks().find((b) => /^stream \{/m.test(b));
  if (!block) throw new Error("server/README.md has no ```nginx block with stream { }");
  const servers = upstreams.map((u) => `    server ${u};`).join("\n");
  if (!/^(\s*server \d[^;{]*;\n)+/m.test(block) || !/^(\s*)listen 25;$/m.test(block))
    throw new Error("server/README.md's stream block has no upstream servers or `listen 25;`");
  block = block
    .replace(/^(\s*server \d[^;{]*;\n)+/m, `${servers}\n`)
    .replace(/^(\s*)listen 25;$/m, `$1listen ${listen};`);
  return `worker_processes 1;
pid nginx.pid;
error_log stderr warn;
load_module ${STREAM_MODULE};
events { worker_connections 1024; }
${block}`;
}

const STREAM_MODULE = "/usr/lib/nginx/modules/ngx_stream_module.so";

export interface ProxyTls {
  cert: string;
  key: string;
}

/**
 * The README's block with this machine's values: its upstream servers replaced by `upstreams`, its
 * `listen 443 ssl` by `listen` (TLS with `tls`'s files, else plain HTTP and no ssl_ lines). Every
 * other line is the README's, so what the tests run is what an operator deploys.
 */
export function proxyConfig(
  listen: string,
  upstreams: string[],
  prefix = "",
  tls?: ProxyTls,
): string {
  let block = readmeProxyBlock();
  const servers = upstreams.map((u) => `  server ${new URL(u).host};`).join("\n");
  const replace = (pattern: RegExp, by: string, what: string) => {
    if (!pattern.test(block)) throw new Error(`server/README.md's nginx block has no ${what}`);
    block = block.replace(pattern, by);
  };
  replace(/^(\s*server [^;{]+;\n)+/m, `${servers}\n`, "upstream server lines");
  replace(
    /^(\s*)listen 443 ssl;$/m,
    tls ? `$1listen ${listen} ssl;` : `$1listen ${listen};`,
    "`listen 443 ssl;`",
  );
  replace(
    /^(\s*)ssl_certificate \S+;$/m,
    tls ? `$1ssl_certificate ${tls.cert};` : "",
    "ssl_certificate",
  );
  replace(
    /^(\s*)ssl_certificate_key \S+;$/m,
    tls ? `$1ssl_certificate_key ${tls.key};` : "",
    "ssl_certificate_key",
  );
  // Temporary files inside the prefix: the compiled-in paths may not be writable.
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((t) => `  ${t}_temp_path ${prefix}tmp/${t};`)
    .join("\n");
  return `worker_processes 1;
pid ${prefix}nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
  access_log off;
${temp}
${block}
}
`;
}

/** nginx on a free loopback port, round-robin over `upstreams` (http://127.0.0.1:<port> each). */
export async function startNginx(upstreams: string[], tls?: ProxyTls): Promise<Proxy> {
  return runNginx(
    (port) => proxyConfig(`127.0.0.1:${port}`, upstreams, "", tls),
    tls ? "https" : "http",
  );
}

/** nginx with the README's stream block on a free loopback port, over `upstreams` (host:port each). */
export async function startNginxStream(upstreams: string[]): Promise<Proxy> {
  requireTool("libnginx-mod-stream", STREAM_MODULE);
  return runNginx((port) => streamConfig(`127.0.0.1:${port}`, upstreams), "tcp");
}

async function runNginx(config: (port: number) => string, scheme: string): Promise<Proxy> {
  requireTool("nginx", NGINX);
  const root = mkdtempSync(path.join(tmpdir(), "nginx-test-"));
  // As root, nginx's workers run as nobody: they must reach the temporary folders in the prefix.
  chmodSync(root, 0o755);
  mkdirSync(path.join(root, "tmp"));
  let log = "";
  // The free port may be taken between our look and nginx's bind: try a few.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const conf = path.join(root, "nginx.conf");
    writeFileSync(conf, config(port));
    const child = spawn(
      "/bin/sh",
      [
        "-c",
        watchdog,
        "sh",
        NGINX,
        "-p",
        `${root}/`,
        "-c",
        conf,
        "-e",
        "stderr",
        "-g",
        "daemon off;",
      ],
      {
        stdio: ["pipe", "ignore", "pipe"],
        cwd: "/",
        env: { ...process.env, NGINX_TEST_ROOT: root },
      },
    );
    child.stderr!.on("data", (c) => (log += c));
    if (await listening(port, child)) {
      const url = `${scheme}://127.0.0.1:${port}`;
      return {
        url,
        async stop() {
          await stopped(child);
          rmSync(root, { recursive: true, force: true });
        },
      };
    }
    await stopped(child);
  }
  rmSync(root, { recursive: true, force: true });
  throw new Error(`nginx did not start: ${log}`);
}

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.stdin!.end();
  await exited;
}

/** Polls until the port accepts connections, or nginx exited (a port taken after our look). */
async function listening(port: number, child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 600 && child.exitCode === null; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}
