// `node server/main.ts` as a child process, the way `npm start` runs it: the environment is its
// whole configuration (server/config.ts). Ports 0 let the kernel choose; the bound HTTP URL and
// SMTP port are read from the start-up lines main.ts prints. The child exits when the test
// process goes (exit-with-parent.ts), and its output is kept for the error a failed start reports.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");
const entry = path.join(root, "server/main.ts");
const preload = path.join(root, "test/support/exit-with-parent.ts");

export interface ServerProcess {
  /** http://127.0.0.1:<port> of this instance, bypassing any proxy. */
  url: string;
  /** The inbound SMTP listener's port (0 when SMTP_ENABLED=off). */
  smtpPort: number;
  child: ChildProcess;
  /** What the process printed so far (the last 64 KiB), for failure messages. */
  output(): string;
  /** kill -9, resolved once the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (a graceful close), then SIGKILL after graceMs. */
  stop(graceMs?: number): Promise<void>;
}

const gone = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;

export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ["--import", preload, entry], {
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: "0",
      DNS_PORT: "0",
      SMTP_PORT: "0",
      DEMO: "off",
      LOG_LEVEL: "warn",
      ...env,
    },
    cwd: root,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const smtpOn = !["off", "0", "false", "no"].includes((env.SMTP_ENABLED ?? "on").toLowerCase());
  let out = "";
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-65_536);
  };
  // Both pipes are always read: a full pipe would block the server's logging.
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async (signal: NodeJS.Signals, graceMs = 5_000) => {
    if (gone(child)) return;
    child.kill(signal);
    const timer = setTimeout(() => !gone(child) && child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const started = () => {
      // main.ts prints the SMTP line last, when the listener runs.
      const url = /^HTTP (http:\/\/\S+)/m.exec(out)?.[1];
      const smtp = /^SMTP [\d.]+:(\d+)/m.exec(out)?.[1];
      if (!url || (smtpOn && !smtp)) return;
      child.stdout!.off("data", started);
      child.off("exit", failed);
      resolve({
        url,
        smtpPort: Number(smtp ?? 0),
        child,
        output: () => out,
        kill9: () => kill("SIGKILL"),
        stop: (graceMs) => kill("SIGTERM", graceMs),
      });
    };
    const failed = () =>
      reject(
        new Error(
          `server exited (${child.exitCode ?? child.signalCode}) before it started: ${out}`,
        ),
      );
    child.stdout!.on("data", started);
    child.once("exit", failed);
  });
}
