// Preloaded (`node --import`) into the server processes tests start: such a process exits when
// the test process's end of its stdin closes, so no server outlives a test run that died in any
// way (a timeout, SIGKILL) and cleaned nothing up. Preloads also run in worker threads (the
// inbound writer, DLP scanners), whose stdin ends at once: only the main thread watches.
import { isMainThread } from "node:worker_threads";

if (isMainThread) {
  process.stdin.on("end", () => process.exit(70));
  process.stdin.on("error", () => process.exit(70));
  process.stdin.resume();
}
