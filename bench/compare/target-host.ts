// The child process of one compared target (target-process.ts): it starts the target's worker
// thread, exactly as the bench that owns the target does, and passes messages between its parent
// and that worker. A process of its own per target, so its CPU time (process.cpuUsage: every
// thread, libuv's pool and GC helpers included) is that target's alone, and two commits' code
// never share a process.
import { Worker } from "node:worker_threads";

const { file, workerData } = JSON.parse(process.env.COMPARE_TARGET!) as { file: string; workerData: unknown };
const send = (message: object) => process.send!(message);
const worker = new Worker(new URL(file), { workerData });
worker.on("message", (data) => send({ from: "worker", data }));
worker.on("error", (error) => {
  send({ from: "host", error: String(error?.stack ?? error) });
  process.exit(1);
});
worker.on("exit", () => process.exit(0));
process.on("message", (m: { to: "worker"; data: unknown } | { to: "host"; cmd: "cpu" }) => {
  if (m.to === "worker") worker.postMessage(m.data);
  else {
    const { user, system } = process.cpuUsage();
    send({ from: "host", data: user + system });
  }
});
// The parent gone (a Ctrl-C, a crash): this target goes too.
process.on("disconnect", () => process.exit(0));
