// What happens to a message after the send, on PostgreSQL (decision P1): sqlite-message-outcomes.ts's
// conditional updates on the status, history, suppressions and event. With `tx` (a relay job's
// write, server/db/tx.ts) a method runs in a savepoint of the worker's transaction, committed with
// the job's removal or rescheduling; without it, in a transaction of its own (a click, an
// unsubscribe, a DSN). A failure leaves nothing of itself behind, as SQLite's `atomically` does.
// Two instances recording feedback for one message at once are ordered by the row lock of the
// status UPDATE.
import { rows, type Pg, type Queryable } from "../db/postgres/pg.ts";
import type { Tx } from "../db/tx.ts";
import type { EventType } from "../events/event-outbox.ts";
import type { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import type { Clock } from "../jobs/clock.ts";
import { bounceableFrom, type DeliveryAttempt, type DeliveryOutcomes, type MessageFeedback, type MessageStatus, type TrackingInfo } from "./message-repository.ts";
import { history, type PgMessageRow } from "./pg-sent-message-repository.ts";
import { pgSuppress } from "./pg-suppression-rules.ts";

async function savepoint<T>(c: Queryable, fn: () => Promise<T>): Promise<T> {
  await c.query("SAVEPOINT mail_outcome");
  try {
    const result = await fn();
    await c.query("RELEASE mail_outcome");
    return result;
  } catch (error) {
    await c.query("ROLLBACK TO mail_outcome");
    await c.query("RELEASE mail_outcome");
    throw error;
  }
}

export class PgMessageOutcomes implements DeliveryOutcomes, MessageFeedback {
  private readonly db: Pg;
  private readonly events: PgEventOutbox;
  private readonly clock: Clock;

  constructor(db: Pg, events: PgEventOutbox, clock: Clock) {
    this.db = db;
    this.events = events;
    this.clock = clock;
  }

  /** fn in a savepoint of the caller's transaction `tx`, or in a transaction of its own. */
  private atomically<T>(tx: Tx | undefined, fn: (c: Queryable) => Promise<T>): Promise<T> {
    if (!tx) return this.db.tx((c) => fn(c));
    if (tx.kind !== "postgres") return Promise.reject(new Error("PostgreSQL mail outcomes were handed a SQLite transaction"));
    return savepoint(tx.c, () => fn(tx.c));
  }

  private async row(c: Queryable, id: string): Promise<PgMessageRow | undefined> {
    return (await rows<PgMessageRow>(c, "SELECT * FROM sent_messages WHERE id = $1", [id]))[0];
  }

  /** Moves the status only from one of `from`; false when another transition got there first. */
  private async move(c: Queryable, id: string, from: MessageStatus[], to: MessageStatus, extra = "", args: (string | number | null)[] = []): Promise<boolean> {
    const n = args.length;
    let i = 2;
    const set = extra.replace(/\?/g, () => `$${++i}`);
    const r = await c.query(`UPDATE sent_messages SET status = $1, updated_at = $2${set} WHERE id = $${n + 3} AND status = ANY($${n + 4})`, [to, this.clock.now(), ...args, id, from]);
    return r.rowCount === 1;
  }

  private async emit(c: Queryable, r: PgMessageRow, type: EventType, data: Record<string, unknown> = {}): Promise<void> {
    const ref: Record<string, unknown> = { messageId: r.id, to: r.to_addr };
    if (r.campaign) ref.campaign = r.campaign;
    if (r.category) ref.category = r.category;
    await this.events.emit(c, r.project_id, type, { ...ref, ...data });
  }

  recordAttempt(id: string, a: DeliveryAttempt, tx?: Tx): Promise<void> {
    return this.atomically(tx, async (c) => {
      await c.query("INSERT INTO sent_message_attempts (message_id, attempt, at, outcome, reason, host) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        [id, a.attempt, this.clock.now(), a.outcome, a.reason, a.host ?? null]);
    });
  }

  /** sent|delayed -> delivered, with `mail.delivered`; `reply` is the recipient server's answer. */
  markDelivered(id: string, reply: string, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, async (c) => {
      const r = await this.row(c, id);
      if (!r || !(await this.move(c, id, ["sent", "delayed"], "delivered", ", delivered_at = ?, last_error = ?", [this.clock.now(), reply]))) return false;
      await history(c, id, "delivered", this.clock.now());
      await this.emit(c, r, "mail.delivered", { relay: r.relay, relayMessageId: r.relay_message_id });
      return true;
    });
  }

  /** Smarthost mode: sent|delayed -> sent with the relay's id (S11); no event. */
  markHandedOver(id: string, relayMessageId: string, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, (c) => this.move(c, id, ["sent", "delayed"], "sent", ", relay_message_id = ?, last_error = NULL", [relayMessageId]));
  }

  /** sent -> delayed (a retry is due); delayed stays delayed with the latest reason. */
  markDelayed(id: string, reason: string, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, (c) => this.move(c, id, ["sent", "delayed"], "delayed", ", last_error = ?", [reason]));
  }

  /** No retry left or a permanent failure before any recipient server answered. */
  markFailed(id: string, reason: string, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, (c) => this.move(c, id, ["sent", "delayed"], "failed", ", last_error = ?", [reason]));
  }

  /** sent|delayed|delivered -> bounced (hard: suppressed in both streams) or soft_bounced; `mail.bounced`. */
  markBounced(id: string, bounce: { bounceType: "hard" | "soft"; reason: string }, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, async (c) => {
      const r = await this.row(c, id);
      const to = bounce.bounceType === "hard" ? "bounced" : "soft_bounced";
      // A DSN can come after the recipient's server said 250 (delivered), within a window (T7).
      if (!r || !(await this.move(c, id, bounceableFrom(r.delivered_at, this.clock.now()), to, ", last_error = ?", [bounce.reason]))) return false;
      if (bounce.bounceType === "hard") {
        await pgSuppress(c, { projectId: r.project_id, address: r.to_addr, kind: "hard", scope: "", reason: bounce.reason, messageId: id, at: this.clock.now() });
      }
      await this.emit(c, r, "mail.bounced", { bounceType: bounce.bounceType, reason: bounce.reason });
      return true;
    });
  }

  /** delivered|sent -> complained; marketing messages suppress per scope; `mail.complained`. */
  markComplained(id: string, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, async (c) => {
      const r = await this.row(c, id);
      if (!r || !(await this.move(c, id, ["delivered", "sent", "delayed"], "complained"))) return false;
      if (r.stream === "marketing") {
        await pgSuppress(c, { projectId: r.project_id, address: r.to_addr, kind: "marketing", scope: r.scope, reason: "complaint", messageId: id, at: this.clock.now() });
      }
      await this.emit(c, r, "mail.complained", { scope: r.scope });
      return true;
    });
  }

  /** A marketing suppression for the message's scope (the transactional stream ignores it). */
  recordUnsubscribe(id: string, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, async (c) => {
      const r = await this.row(c, id);
      if (!r) return false;
      await pgSuppress(c, { projectId: r.project_id, address: r.to_addr, kind: "marketing", scope: r.scope, reason: "unsubscribe", messageId: id, at: this.clock.now() });
      return true;
    });
  }

  /** opens + 1, history `opened`, `mail.opened`. */
  recordOpen(id: string, tx?: Tx): Promise<boolean> {
    return this.atomically(tx, async (c) => {
      const [r] = await rows<PgMessageRow>(c, "UPDATE sent_messages SET opens = opens + 1 WHERE id = $1 RETURNING *", [id]);
      if (!r) return false;
      await history(c, id, "opened", this.clock.now());
      await this.emit(c, r, "mail.opened");
      return true;
    });
  }

  /** The link's and the message's clicks + 1, history `clicked`, `mail.clicked`; the URL to redirect to. */
  recordClick(id: string, idx: number, tx?: Tx): Promise<string | undefined> {
    // An index that is no INTEGER names no link, as on SQLite.
    if (!Number.isSafeInteger(idx) || Math.abs(idx) > 2 ** 31 - 1) return Promise.resolve(undefined);
    return this.atomically(tx, async (c) => {
      const [link] = await rows<{ url: string }>(c, "UPDATE sent_message_links SET clicks = clicks + 1 WHERE message_id = $1 AND idx = $2 RETURNING url", [id, idx]);
      if (!link) return undefined;
      const [r] = await rows<PgMessageRow>(c, "UPDATE sent_messages SET clicks = clicks + 1 WHERE id = $1 RETURNING *", [id]);
      await history(c, id, "clicked", this.clock.now());
      await this.emit(c, r, "mail.clicked", { idx, url: link.url });
      return link.url;
    });
  }

  /** Tracking and unsubscribe pages: who the message belongs to. */
  async getTrackingInfo(id: string): Promise<TrackingInfo | undefined> {
    const c = this.db.pool;
    const r = await this.row(c, id);
    if (!r) return undefined;
    const links = await rows<{ idx: number; url: string }>(c, "SELECT idx, url FROM sent_message_links WHERE message_id = $1 ORDER BY idx", [id]);
    return {
      id: r.id, projectId: r.project_id, status: r.status, to: r.to_addr, from: r.from_addr, stream: r.stream, scope: r.scope,
      track: r.track, unsubscribe: r.unsubscribe, links: links.map((l) => ({ idx: l.idx, url: l.url })),
    };
  }
}
