// The inbound benchmark's client (issue 32): Postfix's smtp-source, one external C program
// driving every target alike (the platform, the bare smtp-server, Postfix), so no target shares
// its CPU with a JavaScript client and the client's cost is the same for all of them.
import { spawn } from "node:child_process";

export interface SmtpSourceRun {
  port: number;
  /** Parallel SMTP sessions (-s). */
  sessions: number;
  /** Messages in all (-m), spread over the sessions. */
  messages: number;
  /** The pre-formatted header and body (-F: smtp-source adds CRLF to each line and dot-stuffs). */
  file: string;
  from: string;
  to: string;
}

/**
 * Sends the messages, each session keeping its connection from one message to the next (-d, as a
 * sending MTA's connection cache does). Resolves with the wall time once every message has had
 * its 250; any other reply makes smtp-source stop with an error, which rejects here.
 */
export function smtpSource(run: SmtpSourceRun): Promise<{ seconds: number }> {
  const args = ["-d", "-s", String(run.sessions), "-m", String(run.messages), "-F", run.file, "-f", run.from, "-t", run.to, "-M", "sender.test", `127.0.0.1:${run.port}`];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    // In a session of its own (setsid): Linux's autogroup scheduling shares the CPU per session,
    // and Postfix's master has its own, so a client left in the bench's session would share one
    // CPU share with the platform and the bare server but not with Postfix. Each target and the
    // client now get a share apiece, whatever else the machine runs.
    const child = spawn("/usr/sbin/smtp-source", args, { stdio: ["ignore", "ignore", "pipe"], detached: true });
    // Not in the bench's process group any more, so not reached by its Ctrl-C: ended with it.
    const end = () => child.kill("SIGKILL");
    process.once("exit", end);
    child.once("exit", () => process.off("exit", end));
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) return resolve({ seconds: (performance.now() - started) / 1000 });
      reject(new Error(`smtp-source ${args.join(" ")} exited ${code}: ${stderr.trim()}`));
    });
  });
}
