// The message detail's event list with the relay's attempts in it (decision H3): each attempt of
// the `to` recipient hangs off the `sent` event it followed, so the list keeps the seed's four
// event values and a client that knows only those reads it as before.
import type { AttemptOutcome, HistoryEvent, MessageDetail } from "./message-repository.ts";

export interface AttemptRow {
  attempt: number;
  at: number;
  outcome: AttemptOutcome;
  reason: string;
  host: string | null;
}

export function withAttempts(events: { event: HistoryEvent; at: number }[], attempts: AttemptRow[]): MessageDetail["events"] {
  const firstSent = events.findIndex((e) => e.event === "sent");
  return events.map((e, i) => {
    const entry: MessageDetail["events"][number] = { event: e.event, at: new Date(Number(e.at)).toISOString() };
    if (i === firstSent && attempts.length > 0) {
      entry.attempts = attempts.map((a) => ({
        attempt: Number(a.attempt), at: new Date(Number(a.at)).toISOString(), outcome: a.outcome, reason: a.reason, ...(a.host ? { host: a.host } : {}),
      }));
    }
    return entry;
  });
}
