// The jobs outgoing mail puts on the one queue (server/jobs): `mail.relay` hands a message to the
// recipients of one domain; `mail.dispatch` turns a scheduled message into a sent one at sendAt.
import type { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";

export const RELAY_JOB = "mail.relay";
export const DISPATCH_JOB = "mail.dispatch";

export interface RelayJobPayload {
  messageId: string;
  rcpts: string[];
  /** The job holding the `to` recipient: its outcome is the message's status. */
  primary: boolean;
}

export interface DispatchJobPayload {
  messageId: string;
}

export const domainOf = (address: string) => address.slice(address.lastIndexOf("@") + 1).toLowerCase();

/** A relay job to enqueue: its payload and its group (the recipient domain). */
export interface RelayJob {
  payload: RelayJobPayload;
  group: string;
}

/**
 * One job for `to` (its outcome is the status) and one per domain of the other recipients; each
 * job's group is its recipient domain, so one slow MX holds only its own slots. The primary job
 * comes first. Both backends' queues enqueue this list.
 */
export function relayJobs(messageId: string, to: string, others: string[]): RelayJob[] {
  const jobs: RelayJob[] = [{ payload: { messageId, rcpts: [to], primary: true }, group: `mx:${domainOf(to)}` }];
  const byDomain = new Map<string, string[]>();
  for (const rcpt of others) {
    if (rcpt.toLowerCase() === to.toLowerCase()) continue;
    const d = domainOf(rcpt);
    byDomain.set(d, [...(byDomain.get(d) ?? []), rcpt]);
  }
  for (const [domain, rcpts] of byDomain) jobs.push({ payload: { messageId, rcpts, primary: false }, group: `mx:${domain}` });
  return jobs;
}

/** Enqueues relayJobs(...); returns the primary job's id: the built-in relay's queue id of the message. */
export function enqueueRelay(jobs: JobQueue, messageId: string, to: string, others: string[]): number {
  const ids = relayJobs(messageId, to, others).map((j) => jobs.enqueue(RELAY_JOB, j.payload, { group: j.group }));
  return ids[0];
}
