// Starts the Prism mock on the committed contract, on a free loopback port.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { freePort, waitForHttp } from "../../conformance/scripts/free-port.ts";

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
  if (!(await waitForHttp(`${baseUrl}/v1/mailboxes`, 60_000, () => prism.exitCode === null))) {
    prism.kill("SIGKILL");
    throw new Error(`prism did not start: ${log}`);
  }
  return {
    baseUrl,
    stop: () =>
      new Promise((resolve) => {
        prism.once("exit", () => resolve());
        prism.kill("SIGTERM");
      }),
  };
}
