// Ctrl-C or SIGTERM during a run: the suite stops sending at once (requests in flight are aborted,
// no new one starts) and the runner returns what ran so far, marked interrupted, so the CLI can
// still print and write the report. Thrown by `send` once the run's signal has fired.
export class RunInterrupted extends Error {
  override name = "RunInterrupted";
  constructor(reason: unknown) {
    super(`run interrupted (${reasonText(reason)})`);
  }
}

/** "SIGINT", "SIGTERM", or whatever the caller aborted with. */
export function reasonText(reason: unknown): string {
  if (typeof reason === "string") return reason;
  if (reason instanceof Error) return reason.message;
  return "aborted";
}
