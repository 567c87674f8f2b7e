// nginx from Debian as a round-robin proxy in front of several server instances, the way a
// deployment on one PostgreSQL runs them (server/README.md, "Deployment"). Its configuration and
// temporary folders live in a throwaway prefix; it listens on a free loopback port only.
// A small sh watchdog stops it (and removes the prefix) when the test process's end of a pipe
// closes: on stop(), and also when the test process dies in any way, so no proxy outlives its test.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../conformance/scripts/free-port.ts";
import { requireTool } from "./system-tools.ts";

const NGINX = "/usr/sbin/nginx";

const watchdog = `exec 3<&0
"$@" 3<&- &
nginx=$!
(
  read -r _ <&3
  kill -TERM "$nginx" 2>/dev/null
  while kill -0 "$nginx" 2>/dev/null; do sleep 0.1; done
  rm -rf "$NGINX_TEST_ROOT"
) &
wait "$nginx"`;

export interface Proxy {
  /** http://127.0.0.1:<port>, without a trailing slash. */
  url: string;
  stop(): Promise<void>;
}

/**
 * The proxy configuration a deployment uses, on `listen`: every request to the next upstream in
 * turn (nginx's default round-robin), keep-alive connections to them, and the client's address
 * and scheme passed on. server/README.md shows the same block.
 */
export function proxyConfig(listen: string, upstreams: string[], prefix = ""): string {
  const servers = upstreams.map((u) => `    server ${new URL(u).host};`).join("\n");
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
  client_max_body_size 30m;
  upstream platform {
${servers}
    keepalive 32;
  }
  server {
    listen ${listen};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;
    proxy_buffering off;
    location / {
      proxy_pass http://platform;
    }
    # nginx refuses TRACE itself (405, an HTML page, no Allow); handing it on lets the platform
    # answer as it answers every method a path lacks: 405 with Allow and the JSON error body.
    error_page 405 = @platform;
    location @platform {
      proxy_pass http://platform;
    }
  }
}
`;
}

/** nginx on a free loopback port, round-robin over `upstreams` (http://127.0.0.1:<port> each). */
export async function startNginx(upstreams: string[]): Promise<Proxy> {
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
    writeFileSync(conf, proxyConfig(`127.0.0.1:${port}`, upstreams));
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
      const url = `http://127.0.0.1:${port}`;
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
