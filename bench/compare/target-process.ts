// Main side of a compared target: a child process (target-host.ts) running the target's worker
// thread. Requests are answered one at a time, in order, as the benches' own workers expect.
import { fork, type ChildProcess } from "node:child_process";

export interface TargetProcess {
  /** The worker's first message (its URL, key and body; or its port). */
  ready: unknown;
  /** Sends `data` to the worker and resolves with its next message. */
  ask<T = unknown>(data: unknown): Promise<T>;
  /** The child process's CPU so far, µs (user + system, all its threads). */
  cpuUs(): Promise<number>;
  /** Sends `stopMessage` to the worker and waits for the process to end. */
  stop(): Promise<void>;
}

type Reply = { from: "worker" | "host"; data?: unknown; error?: string };

export function startTargetProcess(file: URL, workerData: unknown, stopMessage: unknown, env: NodeJS.ProcessEnv = process.env): Promise<TargetProcess> {
  const child: ChildProcess = fork(new URL("./target-host.ts", import.meta.url), [], {
    env: { ...env, COMPARE_TARGET: JSON.stringify({ file: file.href, workerData }) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    // COMPARE_CPU_PROF=DIR: each target writes a V8 CPU profile there (--cpu-prof cannot go
    // through NODE_OPTIONS), to see where one side spends what the other does not.
    execArgv: process.env.COMPARE_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.COMPARE_CPU_PROF}`] : undefined,
  });
  const end = () => child.kill("SIGKILL");
  process.once("exit", end);
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const onMessage = (m: Reply) => {
        child.off("exit", onExit);
        if (m.error) reject(new Error(m.error));
        else resolve(m.data);
      };
      const onExit = (code: number | null) => {
        child.off("message", onMessage);
        reject(new Error(`${file.pathname}: target process exited (${code})`));
      };
      child.once("message", onMessage);
      child.once("exit", onExit);
    });
  return next().then((ready) => ({
    ready,
    ask: <T,>(data: unknown) => {
      const reply = next();
      child.send({ to: "worker", data });
      return reply as Promise<T>;
    },
    cpuUs: () => {
      const reply = next();
      child.send({ to: "host", cmd: "cpu" });
      return reply as Promise<number>;
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.send({ to: "worker", data: stopMessage });
      const timer = setTimeout(end, 20_000);
      await exited;
      clearTimeout(timer);
      process.off("exit", end);
    },
  }));
}
