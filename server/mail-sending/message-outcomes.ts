// What happens to a message after the send, written once over the store (db/sql.ts): the relay's
// results and the feedback of tracking, unsubscribe, DSNs and complaint reports. Each method is
// one conditional update on the status, its history entry, suppression rows and the event, in a
// savepoint of the caller's transaction `tx` (a relay job's write, committed with the job's
// removal or rescheduling) or in a transaction of its own (a click, an unsubscribe, a DSN); a
// failure leaves nothing of itself behind. Two instances recording feedback for one message at
// once are ordered by the row lock of the status UPDATE.
import { bool, type Param, type Sql, type Store } from "../db/sql.ts";
import type { EventType } from "../events/event-outbox.ts";
import type { Clock } from "../jobs/clock.ts";
import type { MailOutbox } from "./mail-outbox.ts";
import { bounceableFrom, type DeliveryAttempt, type DeliveryOutcomes, type MessageFeedback, type MessageStatus, type TrackingInfo } from "./message-repository.ts";
import { history, type MessageRow } from "./sent-message-repository.ts";
import { suppress } from "./suppression-rules.ts";

/** What an event names of its message. */
type EventRef = Pick<MessageRow, "id" | "project_id" | "to_addr" | "campaign" | "category">;

/** INTEGER's range: an index outside it names no link (PostgreSQL would refuse the parameter). */
const isIndex = (idx: number) => Number.isSafeInteger(idx) && Math.abs(idx) <= 2 ** 31 - 1;

export class SqlMessageOutcomes implements DeliveryOutcomes, MessageFeedback {
  private readonly store: Store;
  private readonly events: MailOutbox;
  private readonly clock: Clock;

  constructor(store: Store, events: MailOutbox, clock: Clock) {
    this.store = store;
    this.events = events;
    this.clock = clock;
  }

  /** fn in a savepoint of the caller's transaction `tx`, or in a transaction of its own. */
  private atomically<T>(tx: Sql | undefined, fn: (tx: Sql) => Promise<T>): Promise<T> {
    return (tx ?? this.store).transaction(fn);
  }

  private row(tx: Sql, id: string): Promise<MessageRow | undefined> {
    return tx.get<MessageRow>("SELECT * FROM sent_messages WHERE id = ?", [id]);
  }

  /** Moves the status only from one of `from`; false when another transition got there first. */
  private async move(tx: Sql, id: string, from: MessageStatus[], to: MessageStatus, extra = "", args: Param[] = []): Promise<boolean> {
    const marks = from.map(() => "?").join(", ");
    const r = await tx.run(`UPDATE sent_messages SET status = ?, updated_at = ?${extra} WHERE id = ? AND status IN (${marks})`, [to, this.clock.now(), ...args, id, ...from]);
    return r.changes === 1;
  }

  private async emit(tx: Sql, r: EventRef, type: EventType, data: Record<string, unknown> = {}): Promise<void> {
    const ref: Record<string, unknown> = { messageId: r.id, to: r.to_addr };
    if (r.campaign) ref.campaign = r.campaign;
    if (r.category) ref.category = r.category;
    await this.events.emit(tx, r.project_id, type, { ...ref, ...data });
  }

  // One statement is atomic on its own: no savepoint around it.
  async recordAttempt(id: string, a: DeliveryAttempt, tx?: Sql): Promise<void> {
    await (tx ?? this.store).run("INSERT INTO sent_message_attempts (message_id, attempt, at, outcome, reason, host) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
      [id, a.attempt, this.clock.now(), a.outcome, a.reason, a.host ?? null]);
  }

  markDelivered(id: string, reply: string, tx?: Sql): Promise<boolean> {
    return this.atomically(tx, async (tx) => {
      // Every relayed message passes here: one statement moves the status and answers what the
      // event names, where reading the whole row first and updating it after took two.
      const now = this.clock.now();
      const r = await tx.get<EventRef & Pick<MessageRow, "relay" | "relay_message_id">>(
        `UPDATE sent_messages SET status = 'delivered', updated_at = ?, delivered_at = ?, last_error = ? WHERE id = ? AND status IN ('sent', 'delayed')
         RETURNING id, project_id, to_addr, campaign, category, relay, relay_message_id`,
        [now, now, reply, id]);
      if (!r) return false;
      await history(tx, id, "delivered", now);
      await this.emit(tx, r, "mail.delivered", { relay: r.relay, relayMessageId: r.relay_message_id });
      return true;
    });
  }

  markHandedOver(id: string, relayMessageId: string, tx?: Sql): Promise<boolean> {
    // A 4xx first left it `delayed`; the smarthost's later 250 makes it `sent` again.
    return this.move(tx ?? this.store, id, ["sent", "delayed"], "sent", ", relay_message_id = ?, last_error = NULL", [relayMessageId]);
  }

  markDelayed(id: string, reason: string, tx?: Sql): Promise<boolean> {
    return this.move(tx ?? this.store, id, ["sent", "delayed"], "delayed", ", last_error = ?", [reason]);
  }

  markFailed(id: string, reason: string, tx?: Sql): Promise<boolean> {
    return this.move(tx ?? this.store, id, ["sent", "delayed"], "failed", ", last_error = ?", [reason]);
  }

  markBounced(id: string, bounce: { bounceType: "hard" | "soft"; reason: string }, tx?: Sql): Promise<boolean> {
    return this.atomically(tx, async (tx) => {
      const r = await this.row(tx, id);
      const to = bounce.bounceType === "hard" ? "bounced" : "soft_bounced";
      // A DSN can come after the recipient's server said 250 (delivered), within a window (T7).
      if (!r || !(await this.move(tx, id, bounceableFrom(r.delivered_at, this.clock.now()), to, ", last_error = ?", [bounce.reason]))) return false;
      if (bounce.bounceType === "hard") {
        await suppress(tx, { projectId: r.project_id, address: r.to_addr, kind: "hard", scope: "", reason: "bounced", detail: bounce.reason, messageId: id, at: this.clock.now() });
      }
      await this.emit(tx, r, "mail.bounced", { bounceType: bounce.bounceType, reason: bounce.reason });
      return true;
    });
  }

  markComplained(id: string): Promise<boolean> {
    return this.atomically(undefined, async (tx) => {
      const r = await this.row(tx, id);
      if (!r || !(await this.move(tx, id, ["delivered", "sent", "delayed"], "complained"))) return false;
      if (r.stream === "marketing") {
        await suppress(tx, { projectId: r.project_id, address: r.to_addr, kind: "marketing", scope: r.scope, reason: "complained", messageId: id, at: this.clock.now() });
      }
      await this.emit(tx, r, "mail.complained", { scope: r.scope });
      return true;
    });
  }

  recordUnsubscribe(id: string): Promise<boolean> {
    return this.atomically(undefined, async (tx) => {
      const r = await this.row(tx, id);
      if (!r) return false;
      // The transactional stream ignores unsubscribes, so only marketing rows stop future mail.
      await suppress(tx, { projectId: r.project_id, address: r.to_addr, kind: "marketing", scope: r.scope, reason: "unsubscribed", messageId: id, at: this.clock.now() });
      return true;
    });
  }

  recordOpen(id: string): Promise<boolean> {
    return this.atomically(undefined, async (tx) => {
      const r = await tx.get<EventRef>("UPDATE sent_messages SET opens = opens + 1 WHERE id = ? RETURNING id, project_id, to_addr, campaign, category", [id]);
      if (!r) return false;
      await history(tx, id, "opened", this.clock.now());
      await this.emit(tx, r, "mail.opened");
      return true;
    });
  }

  recordClick(id: string, idx: number): Promise<string | undefined> {
    if (!isIndex(idx)) return Promise.resolve(undefined);
    return this.atomically(undefined, async (tx) => {
      const link = await tx.get<{ url: string }>("UPDATE sent_message_links SET clicks = clicks + 1 WHERE message_id = ? AND idx = ? RETURNING url", [id, idx]);
      if (!link) return undefined;
      const r = await tx.get<EventRef>("UPDATE sent_messages SET clicks = clicks + 1 WHERE id = ? RETURNING id, project_id, to_addr, campaign, category", [id]);
      if (!r) return undefined;
      await history(tx, id, "clicked", this.clock.now());
      await this.emit(tx, r, "mail.clicked", { idx, url: link.url });
      return link.url;
    });
  }

  async getTrackingInfo(id: string): Promise<TrackingInfo | undefined> {
    const r = await this.row(this.store, id);
    if (!r) return undefined;
    const links = await this.store.all<{ idx: number; url: string }>("SELECT idx, url FROM sent_message_links WHERE message_id = ? ORDER BY idx", [id]);
    return {
      id: r.id, projectId: r.project_id, status: r.status, to: r.to_addr, from: r.from_addr, stream: r.stream, scope: r.scope,
      track: bool(r.track), unsubscribe: bool(r.unsubscribe), links: links.map((l) => ({ idx: l.idx, url: l.url })),
    };
  }
}
