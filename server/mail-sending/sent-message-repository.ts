// The send side of outgoing mail, written once over the store (db/sql.ts). accept is one
// transaction: the idempotency check (under the key's lock, idempotency.ts), the messages, their
// relay or dispatch jobs, the caller's further writes and the stored response commit together.
// Dispatch and cancel are conditional updates on the status, the row read first under a lock
// (dialect.forUpdate), so of a cancel and a dispatch at the same instant exactly one changes it.
import { bool, type Sql, type Store } from "../db/sql.ts";
import type { Clock } from "../jobs/clock.ts";
import { withAttempts, type AttemptRow } from "./attempt-history.ts";
// The one line to change when the foundation's group commit on the Store lands: "../db/group-commit.ts".
import { groupCommit } from "../db/group-commit.ts";
import { priorSend, remember } from "./idempotency.ts";
import type { MailOutbox } from "./mail-outbox.ts";
import type {
  AcceptOutcome, AcceptRequest, AcceptResult, CancelResult, DispatchResult, FunnelCounts, HistoryEvent,
  MessageDetail, MessageStatus, MessageSummary, NewMessage, SentMessageRepository, StoredMessage,
} from "./message-repository.ts";
import { DISPATCH_JOB, enqueueRelay, type DispatchJobPayload } from "./relay-jobs.ts";
import { isSuppressed } from "./suppression-rules.ts";
import { SANDBOX_DOMAIN } from "./sandbox/sandbox-recipients.ts";

export interface MessageRow {
  id: string;
  project_id: string;
  status: MessageStatus;
  from_addr: string;
  to_addr: string;
  cc: string;
  bcc: string;
  reply_to: string;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  headers: string;
  category: string | null;
  campaign: string | null;
  stream: "transactional" | "marketing";
  scope: string;
  /** 0/1 on SQLite, a boolean on PostgreSQL: read with bool(). */
  track: unknown;
  unsubscribe: unknown;
  rfc_message_id: string;
  return_path: string;
  send_at: number | null;
  relay: string | null;
  relay_message_id: string | null;
  opens: number;
  clicks: number;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** The statement that records one event of a message's history. */
const historyStatement = (id: string, event: HistoryEvent, at: number) => ["INSERT INTO sent_message_events (message_id, event, at) VALUES (?, ?, ?)", [id, event, at]] as const;

export async function history(tx: Sql, id: string, event: HistoryEvent, at: number): Promise<void> {
  await tx.run(...historyStatement(id, event, at));
}

/**
 * The statuses whose `last_error` says why (decision S16): a delivered or handed-over message's is
 * the accepting server's reply, not a reason.
 */
const REASONED: ReadonlySet<MessageStatus> = new Set(["delayed", "failed", "bounced", "soft_bounced"]);

export class SqlSentMessageRepository implements SentMessageRepository {
  private readonly store: Store;
  private readonly jobs: MailOutbox;
  private readonly clock: Clock;

  constructor(store: Store, jobs: MailOutbox, clock: Clock) {
    this.store = store;
    this.jobs = jobs;
    this.clock = clock;
  }

  /** In the next group commit (decision SP1): answered once its rows are on disk. Not inside an open transaction. */
  accept(request: AcceptRequest): Promise<AcceptResult> {
    return groupCommit(this.store, async (tx): Promise<AcceptResult> => {
      const now = this.clock.now();
      const idem = request.idempotency;
      const prior = idem && (await priorSend(tx, request.projectId, idem, now));
      if (prior) return prior;
      const outcomes: AcceptOutcome[] = [];
      for (const m of request.messages) outcomes.push(await this.insert(tx, request.projectId, m, request.relayName, now));
      await request.alsoWrite?.(outcomes, tx);
      const response = request.respond(outcomes);
      if (idem) await remember(tx, request.projectId, idem, response, now);
      return { kind: "accepted", response };
    });
  }

  private async insert(tx: Sql, projectId: string, m: NewMessage, relayName: string, now: number): Promise<AcceptOutcome> {
    let status: MessageStatus;
    let relay: string | null = null;
    let relayMessageId: string | null = null;
    if (m.sendAt !== undefined) {
      status = "scheduled";
      await this.jobs.enqueue(tx, DISPATCH_JOB, { messageId: m.id } satisfies DispatchJobPayload, { runAt: m.sendAt });
    } else if (await isSuppressed(tx, projectId, m.to, m.stream, m.scope)) {
      status = "suppressed";
    } else {
      status = "sent";
      relay = relayName;
      relayMessageId = String(await enqueueRelay(this.jobs, tx, m.id, m.to, await this.unsuppressed(tx, projectId, m, [...m.cc, ...m.bcc])));
    }
    const row = [
      `INSERT INTO sent_messages (id, project_id, status, from_addr, to_addr, cc, bcc, reply_to, subject, text_body, html_body, headers,
         category, campaign, stream, scope, track, unsubscribe, rfc_message_id, return_path, send_at, relay, relay_message_id,
         created_at, sent_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        m.id, projectId, status, m.from, m.to, JSON.stringify(m.cc), JSON.stringify(m.bcc), JSON.stringify(m.replyTo), m.subject,
        m.text ?? null, m.html ?? null, JSON.stringify(m.headers), m.category ?? null, m.campaign ?? null, m.stream, m.scope,
        m.track, m.unsubscribe, m.rfcMessageId, m.returnPath, m.sendAt ?? null, relay, relayMessageId,
        now, status === "sent" ? now : null, now,
      ],
    ] as const;
    // The row and its "sent" event in one step: one round trip on PostgreSQL (decision P10).
    await tx.runAll(status === "sent" ? [row, historyStatement(m.id, "sent", now)] : [row]);
    for (const [idx, a] of m.attachments.entries()) {
      await tx.run("INSERT INTO sent_attachments (message_id, idx, filename, content_type, content) VALUES (?, ?, ?, ?, ?)", [m.id, idx, a.filename, a.contentType ?? null, a.content]);
    }
    for (const [idx, url] of m.links.entries()) await tx.run("INSERT INTO sent_message_links (message_id, idx, url) VALUES (?, ?, ?)", [m.id, idx, url]);
    return { id: m.id, to: m.to, status, relay, relayMessageId };
  }

  /** Cc and Bcc recipients suppressed for the stream are left out of the envelope. */
  private async unsuppressed(tx: Sql, projectId: string, m: { stream: NewMessage["stream"]; scope: string }, rcpts: string[]): Promise<string[]> {
    const kept: string[] = [];
    for (const r of rcpts) if (!(await isSuppressed(tx, projectId, r, m.stream, m.scope))) kept.push(r);
    return kept;
  }

  /**
   * A scheduled message whose time came: scheduled -> sent (or suppressed), in a savepoint of the
   * dispatch job's transaction `tx` (or a transaction of its own). The row is locked first, so a
   * cancel on another instance either happened before (gone) or waits and then finds it sent.
   */
  dispatchScheduled(id: string, relayName: string, tx?: Sql): Promise<DispatchResult> {
    return (tx ?? this.store).transaction(async (tx): Promise<DispatchResult> => {
      const row = await tx.get<MessageRow>(`SELECT * FROM sent_messages WHERE id = ? ${tx.dialect.forUpdate}`, [id]);
      if (!row || row.status !== "scheduled") return { kind: "gone", status: row?.status ?? null };
      const now = this.clock.now();
      if (await isSuppressed(tx, row.project_id, row.to_addr, row.stream, row.scope)) {
        await tx.run("UPDATE sent_messages SET status = 'suppressed', updated_at = ? WHERE id = ? AND status = 'scheduled'", [now, id]);
        return { kind: "dispatched", status: "suppressed" };
      }
      const others = await this.unsuppressed(tx, row.project_id, row, [...JSON.parse(row.cc), ...JSON.parse(row.bcc)]);
      const queueId = String(await enqueueRelay(this.jobs, tx, id, row.to_addr, others));
      const { changes } = await tx.run(
        "UPDATE sent_messages SET status = 'sent', relay = ?, relay_message_id = ?, sent_at = ?, updated_at = ? WHERE id = ? AND status = 'scheduled'",
        [relayName, queueId, now, now, id]);
      if (changes !== 1) throw new Error(`message ${id} left scheduled during dispatch`);
      await history(tx, id, "sent", now);
      return { kind: "dispatched", status: "sent" };
    });
  }

  cancel(projectId: string, id: string): Promise<CancelResult> {
    return this.store.transaction(async (tx): Promise<CancelResult> => {
      const { changes } = await tx.run("UPDATE sent_messages SET status = 'canceled', updated_at = ? WHERE id = ? AND project_id = ? AND status = 'scheduled'",
        [this.clock.now(), id, projectId]);
      if (changes === 1) {
        await this.jobs.cancelWhere(tx, DISPATCH_JOB, "$.messageId", id);
        return { kind: "canceled" };
      }
      const row = await tx.get<{ status: MessageStatus }>("SELECT status FROM sent_messages WHERE id = ? AND project_id = ?", [id, projectId]);
      return row ? { kind: "not_cancelable", status: row.status } : { kind: "not_found" };
    });
  }

  async list(projectId: string, f: { limit: number; offset: number; status?: MessageStatus; campaign?: string }): Promise<MessageSummary[]> {
    // CAST: PostgreSQL must know a parameter's type where it is only tested for NULL.
    const found = await this.store.all<Pick<MessageRow, "id" | "to_addr" | "status" | "opens" | "clicks">>(
      `SELECT id, to_addr, status, opens, clicks FROM sent_messages
       WHERE project_id = ? AND (CAST(? AS TEXT) IS NULL OR status = ?) AND (CAST(? AS TEXT) IS NULL OR campaign = ?)
       ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
      [projectId, f.status ?? null, f.status ?? null, f.campaign ?? null, f.campaign ?? null, f.limit, f.offset],
    );
    return found.map((r) => ({ id: r.id, toAddr: r.to_addr, status: r.status, opens: r.opens, clicks: r.clicks }));
  }

  async detail(projectId: string, id: string): Promise<MessageDetail | undefined> {
    const r = await this.store.get<MessageRow>("SELECT * FROM sent_messages WHERE id = ? AND project_id = ?", [id, projectId]);
    if (!r) return undefined;
    // Events of one instant in the order a message lives them (the table keeps no insertion order on both stores).
    const events = await this.store.all<{ event: HistoryEvent; at: number }>(
      `SELECT event, at FROM sent_message_events WHERE message_id = ?
       ORDER BY at, CASE event WHEN 'sent' THEN 0 WHEN 'delivered' THEN 1 WHEN 'opened' THEN 2 ELSE 3 END`, [id]);
    const links = await this.store.all<{ idx: number; url: string; clicks: number }>("SELECT idx, url, clicks FROM sent_message_links WHERE message_id = ? ORDER BY idx", [id]);
    const attempts = await this.store.all<AttemptRow>("SELECT attempt, at, outcome, reason, host FROM sent_message_attempts WHERE message_id = ? ORDER BY attempt", [id]);
    return {
      message: {
        id: r.id, status: r.status, relay: r.relay, relayMessageId: r.relay_message_id, toAddr: r.to_addr, opens: r.opens, clicks: r.clicks,
        ...(r.last_error !== null && REASONED.has(r.status) ? { statusReason: r.last_error } : {}),
      },
      events: withAttempts(events, attempts),
      links: links.map((l) => ({ idx: l.idx, url: l.url, clicks: l.clicks })),
    };
  }

  /**
   * Messages to the sandbox (decision H4) are left out (decision S17): they never reach a relay
   * provider, whose thresholds health measures, and one tour of its bounced@ and complained@
   * addresses made a fresh account `critical`.
   */
  async funnel(projectId: string, since: number, campaign?: string): Promise<FunnelCounts> {
    const row = await this.store.get<FunnelCounts>(
      `SELECT COUNT(*) AS total, COUNT(*) FILTER (WHERE sent_at IS NOT NULL) AS accepted, COUNT(*) FILTER (WHERE delivered_at IS NOT NULL) AS delivered,
         COUNT(*) FILTER (WHERE opens > 0) AS opened, COUNT(*) FILTER (WHERE clicks > 0) AS clicked, COUNT(*) FILTER (WHERE status = 'bounced') AS bounced,
         COUNT(*) FILTER (WHERE status = 'soft_bounced') AS "softBounced", COUNT(*) FILTER (WHERE status = 'complained') AS complained
       FROM sent_messages WHERE project_id = ? AND created_at >= ? AND (CAST(? AS TEXT) IS NULL OR campaign = ?)
         AND LOWER(to_addr) NOT LIKE ?`,
      [projectId, since, campaign ?? null, campaign ?? null, `%@${SANDBOX_DOMAIN}`],
    );
    return { ...row! };
  }

  async getForRelay(id: string): Promise<StoredMessage | undefined> {
    const r = await this.store.get<MessageRow>("SELECT * FROM sent_messages WHERE id = ?", [id]);
    if (!r) return undefined;
    const attachments = await this.store.all<{ filename: string; content_type: string | null; content: Uint8Array }>(
      "SELECT filename, content_type, content FROM sent_attachments WHERE message_id = ? ORDER BY idx", [id]);
    return {
      id: r.id, projectId: r.project_id, status: r.status, from: r.from_addr, to: r.to_addr,
      cc: JSON.parse(r.cc), bcc: JSON.parse(r.bcc), replyTo: JSON.parse(r.reply_to), subject: r.subject,
      text: r.text_body ?? undefined, html: r.html_body ?? undefined, headers: JSON.parse(r.headers),
      category: r.category ?? undefined, campaign: r.campaign ?? undefined, stream: r.stream, scope: r.scope,
      track: bool(r.track), unsubscribe: bool(r.unsubscribe), rfcMessageId: r.rfc_message_id, returnPath: r.return_path,
      sendAt: r.send_at, relay: r.relay, relayMessageId: r.relay_message_id, opens: r.opens, clicks: r.clicks,
      createdAt: r.created_at, lastError: r.last_error,
      attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.content_type ?? undefined, content: Buffer.isBuffer(a.content) ? a.content : Buffer.from(a.content) })),
    };
  }
}
