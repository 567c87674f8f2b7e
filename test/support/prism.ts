// Starts the Prism mock on the committed contract, on a free loopback port.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface RunningMock {
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startPrism(): Promise<RunningMock> {
  const port = await freePort();
  const prism = spawn(
    process.execPath,
    [
      `${root}node_modules/@stoplight/prism-cli/dist/index.js`,
      "mock",
      "generated/openapi/openapi.json",
      "-h",
      "127.0.0.1",
      "-p",
      String(port),
    ],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  prism.stdout!.on("data", (chunk) => (log += chunk));
  prism.stderr!.on("data", (chunk) => (log += chunk));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilListening(prism, baseUrl, () => log);
  return {
    baseUrl,
    stop: () =>
      new Promise((resolve) => {
        prism.once("exit", () => resolve());
        prism.kill("SIGTERM");
      }),
  };
}

async function waitUntilListening(
  child: ChildProcess,
  baseUrl: string,
  log: () => string,
): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`prism exited: ${log()}`);
    try {
      await fetch(`${baseUrl}/v1/mailboxes`);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill("SIGKILL");
  throw new Error(`prism did not start: ${log()}`);
}
