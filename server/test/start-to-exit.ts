// The server started as `npm start` starts it, with the environment as its whole configuration,
// run until it exits: for the start-up checks that must refuse a bad setting before anything
// listens (startup-errors.test.ts, config-schema.test.ts). A start that is not refused is killed
// after a minute, so such a test fails on its exit code instead of hanging.
import { spawn } from "node:child_process";
import path from "node:path";

const entry = path.resolve(import.meta.dirname, "../main.ts");

export interface StartRun {
  code: number | null;
  stderr: string;
  stdout: string;
}

export function startToExit(dataDir: string, env: Record<string, string>): Promise<StartRun> {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH!, DATA_DIR: dataDir, PORT: "0", DNS_PORT: "0", SMTP_PORT: "0", DEMO: "off", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    }),
  );
}
