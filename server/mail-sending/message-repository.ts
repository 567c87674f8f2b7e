// The storage boundary of outgoing mail, written once over the store (db/sql.ts). Each method is
// atomic on its own and joins the caller's transaction `tx` when given one (a job handler's
// `write`), so a state change, its history entry, its suppression rows, its events and its
// follow-up jobs commit together or not at all.

import type { Sql } from "../db/sql.ts";

export const MESSAGE_STATUSES = ["sent", "delivered", "bounced", "soft_bounced", "complained", "delayed", "scheduled", "suppressed", "failed", "canceled"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * How long after the recipient's server said 250 a DSN may still bounce the message (T7): a
 * gateway that accepted it may give up later, within its queue lifetime (5 days for Postfix and
 * Sendmail by default, 2 for Exchange), and its DSN may take a while to reach us. Later, a
 * "bounce" of a delivered message is not plausible and changes nothing.
 */
export const DSN_WINDOW_AFTER_DELIVERY_MS = 7 * 86_400_000;

/** The states a bounce may leave: in flight, or delivered within the window (T7). */
export function bounceableFrom(deliveredAt: number | null, now: number): MessageStatus[] {
  return deliveredAt !== null && now - Number(deliveredAt) <= DSN_WINDOW_AFTER_DELIVERY_MS ? ["sent", "delayed", "delivered"] : ["sent", "delayed"];
}
export type MailStream = "transactional" | "marketing";
export type HistoryEvent = "sent" | "delivered" | "opened" | "clicked";

export interface MessageAttachment {
  filename: string;
  contentType?: string;
  content: Buffer;
}

/** A message as the accept path decided it: content rendered, headers checked, envelope fixed. */
export interface NewMessage {
  id: string;
  from: string;
  to: string;
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  text?: string;
  html?: string;
  /** Custom headers plus those the outgoing hooks added (List-Unsubscribe...). */
  headers: Record<string, string>;
  category?: string;
  campaign?: string;
  stream: MailStream;
  scope: string;
  track: boolean;
  unsubscribe: boolean;
  /** Without angle brackets, on the sender domain. */
  rfcMessageId: string;
  /** Envelope sender (VERP), where DSNs come back. */
  returnPath: string;
  /** Epoch ms; set only for a send in the future (status scheduled). */
  sendAt?: number;
  attachments: MessageAttachment[];
  /** Tracked links of the HTML, in order (idx = position). */
  links: string[];
}

export interface AcceptOutcome {
  id: string;
  to: string;
  status: MessageStatus;
  relay: string | null;
  relayMessageId: string | null;
}

export interface AcceptRequest {
  projectId: string;
  messages: NewMessage[];
  /** The built-in relay's host name, the `relay` of a message it took. */
  relayName: string;
  idempotency?: { key: string; bodyHash: string };
  /** Further writes of the same transaction (the DLP log of a warned send), on its `tx`. */
  alsoWrite?: (outcomes: AcceptOutcome[], tx: Sql) => Promise<void>;
  /** Builds the response inside the transaction; it is stored for idempotent replays. */
  respond: (outcomes: AcceptOutcome[]) => unknown;
}

export type AcceptResult =
  | { kind: "accepted"; response: unknown }
  /** The same idempotency key and body within 24 hours: the original response. */
  | { kind: "replay"; response: unknown }
  /** The same key with another body (409 idempotency_conflict). */
  | { kind: "conflict" };

export interface StoredMessage extends Omit<NewMessage, "sendAt" | "links"> {
  projectId: string;
  status: MessageStatus;
  relay: string | null;
  relayMessageId: string | null;
  opens: number;
  clicks: number;
  createdAt: number;
  sendAt: number | null;
  lastError: string | null;
}

export interface MessageSummary {
  id: string;
  toAddr: string;
  status: MessageStatus;
  opens: number;
  clicks: number;
}

/** What one hand-over attempt of the `to` recipient led to (decision H3). */
export type AttemptOutcome = "delivered" | "handed_over" | "delayed" | "bounced" | "soft_bounced" | "failed";

export interface DeliveryAttempt {
  /** 1 for the first attempt: the relay job's attempt count. */
  attempt: number;
  outcome: AttemptOutcome;
  /** The server's reply, or why no server answered (no MX, connection refused, timeout). */
  reason: string;
  /** The server that answered or was tried, when one was found. */
  host?: string;
}

export interface MessageDetail {
  message: { id: string; status: MessageStatus; relay: string | null; relayMessageId: string | null; toAddr: string; opens: number; clicks: number; statusReason?: string };
  /** The `sent` event carries the attempts that followed it, oldest first. */
  events: { event: HistoryEvent; at: string; attempts?: (DeliveryAttempt & { at: string })[] }[];
  links: { idx: number; url: string; clicks: number }[];
}

export type CancelResult = { kind: "canceled" } | { kind: "not_cancelable"; status: MessageStatus } | { kind: "not_found" };

export type DispatchResult = { kind: "dispatched"; status: "sent" | "suppressed" } | { kind: "gone"; status: MessageStatus | null };

export interface FunnelCounts {
  total: number;
  accepted: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  softBounced: number;
  complained: number;
}

/** The send side: accept, schedule, cancel, read. */
export interface SentMessageRepository {
  accept(request: AcceptRequest): Promise<AcceptResult>;
  /**
   * A scheduled message whose time came: scheduled -> sent (or suppressed), race-free against
   * cancel. `tx`: the dispatch job's transaction it joins.
   */
  dispatchScheduled(id: string, relayName: string, tx?: Sql): Promise<DispatchResult>;
  cancel(projectId: string, id: string): Promise<CancelResult>;
  list(projectId: string, filter: { limit: number; offset: number; status?: MessageStatus; campaign?: string }): Promise<MessageSummary[]>;
  detail(projectId: string, id: string): Promise<MessageDetail | undefined>;
  funnel(projectId: string, since: number, campaign?: string): Promise<FunnelCounts>;
  /** The relay's view: everything needed to compose and deliver. */
  getForRelay(id: string): Promise<StoredMessage | undefined>;
}

/**
 * What the relay reports back, in the relay job's write: `tx` is the worker's transaction the
 * change joins (server/db/tx.ts); without it the change commits on its own.
 */
export interface DeliveryOutcomes {
  /** One attempt's outcome, in the same write as the status change it causes; a repeated attempt number is kept once. */
  recordAttempt(id: string, attempt: DeliveryAttempt, tx?: Sql): Promise<void>;
  /** sent|delayed -> delivered, with `mail.delivered`; `reply` is the recipient server's answer. */
  markDelivered(id: string, reply: string, tx?: Sql): Promise<boolean>;
  /**
   * Smarthost mode: its 250 is a relay durably accepting the message, not delivery. sent|delayed
   * -> sent, `relayMessageId` = the id in that reply (S11); no event (delivery is learned from DSNs).
   */
  markHandedOver(id: string, relayMessageId: string, tx?: Sql): Promise<boolean>;
  /** sent -> delayed (a retry is due); delayed stays delayed with the latest reason. */
  markDelayed(id: string, reason: string, tx?: Sql): Promise<boolean>;
  /** No retry left or a permanent failure before any recipient server answered. */
  markFailed(id: string, reason: string, tx?: Sql): Promise<boolean>;
}

/**
 * What tracking, unsubscribe and asynchronous feedback (DSN, ARF) report, by message id. Each
 * call writes the message, its history, suppressions and the event in one transaction; each
 * answers false (or undefined) when the message does not exist or the transition is not allowed.
 * Values on SQLite, promises on PostgreSQL: callers await.
 */
export interface MessageFeedback {
  /** Tracking and unsubscribe pages: who the message belongs to. */
  getTrackingInfo(id: string): Promise<TrackingInfo | undefined>;
  /** opens + 1, history `opened`, `mail.opened`. */
  recordOpen(id: string): Promise<boolean>;
  /** The link's clicks and the message's clicks + 1, history `clicked`, `mail.clicked`; the URL to redirect to. */
  recordClick(id: string, idx: number): Promise<string | undefined>;
  /** A marketing suppression for the message's scope (stream rules in the README). */
  recordUnsubscribe(id: string): Promise<boolean>;
  /**
   * sent|delayed -> bounced (hard: the address suppressed in both streams, project-wide) or
   * soft_bounced; `mail.bounced`. A delivered message bounces only within
   * DSN_WINDOW_AFTER_DELIVERY_MS of its delivery (decision T7).
   */
  markBounced(id: string, bounce: { bounceType: "hard" | "soft"; reason: string }, tx?: Sql): Promise<boolean>;
  /** delivered|sent -> complained; marketing messages suppress per scope; `mail.complained`. */
  markComplained(id: string): Promise<boolean>;
}

export interface TrackingInfo {
  id: string;
  projectId: string;
  status: MessageStatus;
  to: string;
  from: string;
  stream: MailStream;
  scope: string;
  track: boolean;
  unsubscribe: boolean;
  links: { idx: number; url: string }[];
}
