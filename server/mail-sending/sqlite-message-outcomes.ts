// What happens to a message after the send: the relay's results and the feedback of tracking,
// unsubscribe, DSNs and complaint reports. Each method is one conditional update on the status,
// its history entry, suppression rows and the event, in one transaction (or the caller's: a job's
// write runs synchronously inside the worker's transaction on this connection, so `tx` is it).
import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import type { Tx } from "../db/tx.ts";
import type { EventType } from "../events/event-outbox.ts";
import type { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import type { Clock } from "../jobs/clock.ts";
import { atomically } from "./atomic.ts";
import { bounceableFrom, type DeliveryAttempt, type DeliveryOutcomes, type HistoryEvent, type MessageFeedback, type MessageStatus, type TrackingInfo } from "./message-repository.ts";
import type { MessageRow } from "./sqlite-sent-message-repository.ts";
import { suppress } from "./suppression-rules.ts";

/** What an event names of its message. */
type EventRef = Pick<MessageRow, "id" | "project_id" | "to_addr" | "campaign" | "category">;

export class SqliteMessageOutcomes implements DeliveryOutcomes, MessageFeedback {
  private readonly db: DatabaseSync;
  private readonly events: EventOutbox;
  private readonly clock: Clock;

  constructor(db: DatabaseSync, events: EventOutbox, clock: Clock) {
    this.db = db;
    this.events = events;
    this.clock = clock;
  }

  private row(id: string): MessageRow | undefined {
    return prepare(this.db, "SELECT * FROM sent_messages WHERE id = ?").get(id) as MessageRow | undefined;
  }

  /** Moves the status only from one of `from`; false when another transition got there first. */
  private move(id: string, from: MessageStatus[], to: MessageStatus, extra = "", args: (string | number | null)[] = []): boolean {
    const marks = from.map(() => "?").join(", ");
    const r = prepare(this.db, `UPDATE sent_messages SET status = ?, updated_at = ?${extra} WHERE id = ? AND status IN (${marks})`)
      .run(to, this.clock.now(), ...args, id, ...from);
    return Number(r.changes) === 1;
  }

  private history(id: string, event: HistoryEvent): void {
    prepare(this.db, "INSERT INTO sent_message_events (message_id, event, at) VALUES (?, ?, ?)").run(id, event, this.clock.now());
  }

  private emit(r: EventRef, type: EventType, data: Record<string, unknown> = {}): void {
    const ref: Record<string, unknown> = { messageId: r.id, to: r.to_addr };
    if (r.campaign) ref.campaign = r.campaign;
    if (r.category) ref.category = r.category;
    this.events.emit(r.project_id, type, { ...ref, ...data });
  }

  recordAttempt(id: string, a: DeliveryAttempt, _tx?: Tx): void {
    prepare(this.db, "INSERT INTO sent_message_attempts (message_id, attempt, at, outcome, reason, host) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
      .run(id, a.attempt, this.clock.now(), a.outcome, a.reason, a.host ?? null);
  }

  markDelivered(id: string, reply: string, _tx?: Tx): boolean {
    return atomically(this.db, () => {
      // Every relayed message passes here: one statement moves the status and answers what the
      // event names, where reading the whole row first and updating it after took two.
      const now = this.clock.now();
      const r = prepare(this.db,
        `UPDATE sent_messages SET status = 'delivered', updated_at = ?, delivered_at = ?, last_error = ? WHERE id = ? AND status IN ('sent', 'delayed')
         RETURNING id, project_id, to_addr, campaign, category, relay, relay_message_id`,
      ).get(now, now, reply, id) as (EventRef & Pick<MessageRow, "relay" | "relay_message_id">) | undefined;
      if (!r) return false;
      this.history(id, "delivered");
      this.emit(r, "mail.delivered", { relay: r.relay, relayMessageId: r.relay_message_id });
      return true;
    });
  }

  markHandedOver(id: string, relayMessageId: string, _tx?: Tx): boolean {
    // A 4xx first left it `delayed`; the smarthost's later 250 makes it `sent` again.
    return atomically(this.db, () => this.move(id, ["sent", "delayed"], "sent", ", relay_message_id = ?, last_error = NULL", [relayMessageId]));
  }

  markDelayed(id: string, reason: string, _tx?: Tx): boolean {
    return atomically(this.db, () => this.move(id, ["sent", "delayed"], "delayed", ", last_error = ?", [reason]));
  }

  markFailed(id: string, reason: string, _tx?: Tx): boolean {
    return atomically(this.db, () => this.move(id, ["sent", "delayed"], "failed", ", last_error = ?", [reason]));
  }

  markBounced(id: string, bounce: { bounceType: "hard" | "soft"; reason: string }, _tx?: Tx): boolean {
    return atomically(this.db, () => {
      const r = this.row(id);
      const to = bounce.bounceType === "hard" ? "bounced" : "soft_bounced";
      // A DSN can come after the recipient's server said 250 (delivered), within a window (T7).
      if (!r || !this.move(id, bounceableFrom(r.delivered_at, this.clock.now()), to, ", last_error = ?", [bounce.reason])) return false;
      if (bounce.bounceType === "hard") {
        suppress(this.db, { projectId: r.project_id, address: r.to_addr, kind: "hard", scope: "", reason: bounce.reason, messageId: id, at: this.clock.now() });
      }
      this.emit(r, "mail.bounced", { bounceType: bounce.bounceType, reason: bounce.reason });
      return true;
    });
  }

  markComplained(id: string): boolean {
    return atomically(this.db, () => {
      const r = this.row(id);
      if (!r || !this.move(id, ["delivered", "sent", "delayed"], "complained")) return false;
      if (r.stream === "marketing") {
        suppress(this.db, { projectId: r.project_id, address: r.to_addr, kind: "marketing", scope: r.scope, reason: "complaint", messageId: id, at: this.clock.now() });
      }
      this.emit(r, "mail.complained", { scope: r.scope });
      return true;
    });
  }

  recordUnsubscribe(id: string): boolean {
    return atomically(this.db, () => {
      const r = this.row(id);
      if (!r) return false;
      // The transactional stream ignores unsubscribes, so only marketing rows stop future mail.
      suppress(this.db, { projectId: r.project_id, address: r.to_addr, kind: "marketing", scope: r.scope, reason: "unsubscribe", messageId: id, at: this.clock.now() });
      return true;
    });
  }

  recordOpen(id: string): boolean {
    return atomically(this.db, () => {
      const r = this.row(id);
      if (!r) return false;
      prepare(this.db, "UPDATE sent_messages SET opens = opens + 1 WHERE id = ?").run(id);
      this.history(id, "opened");
      this.emit(r, "mail.opened");
      return true;
    });
  }

  recordClick(id: string, idx: number): string | undefined {
    return atomically(this.db, () => {
      const r = this.row(id);
      const link = prepare(this.db, "UPDATE sent_message_links SET clicks = clicks + 1 WHERE message_id = ? AND idx = ? RETURNING url").get(id, idx) as { url: string } | undefined;
      if (!r || !link) return undefined;
      prepare(this.db, "UPDATE sent_messages SET clicks = clicks + 1 WHERE id = ?").run(id);
      this.history(id, "clicked");
      this.emit(r, "mail.clicked", { idx, url: link.url });
      return link.url;
    });
  }

  getTrackingInfo(id: string): TrackingInfo | undefined {
    const r = this.row(id);
    if (!r) return undefined;
    const links = prepare(this.db, "SELECT idx, url FROM sent_message_links WHERE message_id = ? ORDER BY idx").all(id) as { idx: number; url: string }[];
    return {
      id: r.id, projectId: r.project_id, status: r.status, to: r.to_addr, from: r.from_addr, stream: r.stream, scope: r.scope,
      track: r.track === 1, unsubscribe: r.unsubscribe === 1, links: links.map((l) => ({ idx: l.idx, url: l.url })),
    };
  }
}
