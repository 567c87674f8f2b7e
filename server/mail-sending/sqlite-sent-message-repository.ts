// The send side of outgoing mail on SQLite: accept (with idempotency, suppression and the relay
// jobs in one transaction), scheduled dispatch and cancel as conditional updates on the status
// (of a cancel and a dispatch at the same instant exactly one changes the row), and the reads.
import type { DatabaseSync } from "node:sqlite";
import { inGroupCommit } from "../db/group-commit.ts";
import { prepare } from "../db/statements.ts";
import { writeOnSqlite, type Tx } from "../db/tx.ts";
import type { Clock } from "../jobs/clock.ts";
import type { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { atomically } from "./atomic.ts";
import { withAttempts, type AttemptRow } from "./attempt-history.ts";
import type {
  AcceptOutcome, AcceptRequest, AcceptResult, CancelResult, DispatchResult, FunnelCounts, HistoryEvent,
  MessageDetail, MessageStatus, MessageSummary, NewMessage, SentMessageRepository, StoredMessage,
} from "./message-repository.ts";
import { priorSend, remember } from "./idempotency.ts";
import { DISPATCH_JOB, enqueueRelay, type DispatchJobPayload } from "./relay-jobs.ts";
import { isSuppressed } from "./suppression-rules.ts";

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
  track: number;
  unsubscribe: number;
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

export class SqliteSentMessageRepository implements SentMessageRepository {
  private readonly db: DatabaseSync;
  private readonly jobs: JobQueue;
  private readonly clock: Clock;

  constructor(db: DatabaseSync, jobs: JobQueue, clock: Clock) {
    this.db = db;
    this.jobs = jobs;
    this.clock = clock;
  }

  accept(request: AcceptRequest): AcceptResult | Promise<AcceptResult> {
    const work = (): AcceptResult => {
      const now = this.clock.now();
      const idem = request.idempotency;
      const prior = idem && priorSend(this.db, request.projectId, idem, now);
      if (prior) return prior;
      const outcomes = request.messages.map((m) => this.insert(request.projectId, m, request.relayName, now));
      const also = request.alsoWrite;
      if (also) writeOnSqlite((tx) => also(outcomes, tx), this.db);
      const response = request.respond(outcomes);
      if (idem) remember(this.db, request.projectId, idem, response, now);
      return { kind: "accepted", response };
    };
    // Inside a caller's transaction (a job handler's write), a savepoint of it; on its own, with
    // the sends of the same moment in one fsync'd commit, answered after it (server/db/group-commit.ts).
    return this.db.isTransaction ? atomically(this.db, work) : inGroupCommit(this.db, work);
  }

  private insert(projectId: string, m: NewMessage, relayName: string, now: number): AcceptOutcome {
    let status: MessageStatus;
    let relay: string | null = null;
    let relayMessageId: string | null = null;
    if (m.sendAt !== undefined) {
      status = "scheduled";
      this.jobs.enqueue(DISPATCH_JOB, { messageId: m.id } satisfies DispatchJobPayload, { runAt: m.sendAt });
    } else if (isSuppressed(this.db, projectId, m.to, m.stream, m.scope)) {
      status = "suppressed";
    } else {
      status = "sent";
      relay = relayName;
      relayMessageId = String(enqueueRelay(this.jobs, m.id, m.to, this.unsuppressed(projectId, m, [...m.cc, ...m.bcc])));
    }
    prepare(this.db,
      `INSERT INTO sent_messages (id, project_id, status, from_addr, to_addr, cc, bcc, reply_to, subject, text_body, html_body, headers,
         category, campaign, stream, scope, track, unsubscribe, rfc_message_id, return_path, send_at, relay, relay_message_id,
         created_at, sent_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      m.id, projectId, status, m.from, m.to, JSON.stringify(m.cc), JSON.stringify(m.bcc), JSON.stringify(m.replyTo), m.subject,
      m.text ?? null, m.html ?? null, JSON.stringify(m.headers), m.category ?? null, m.campaign ?? null, m.stream, m.scope,
      m.track ? 1 : 0, m.unsubscribe ? 1 : 0, m.rfcMessageId, m.returnPath, m.sendAt ?? null, relay, relayMessageId,
      now, status === "sent" ? now : null, now,
    );
    m.attachments.forEach((a, idx) =>
      prepare(this.db, "INSERT INTO sent_attachments (message_id, idx, filename, content_type, content) VALUES (?, ?, ?, ?, ?)")
        .run(m.id, idx, a.filename, a.contentType ?? null, a.content),
    );
    m.links.forEach((url, idx) => prepare(this.db, "INSERT INTO sent_message_links (message_id, idx, url) VALUES (?, ?, ?)").run(m.id, idx, url));
    if (status === "sent") this.history(m.id, "sent", now);
    return { id: m.id, to: m.to, status, relay, relayMessageId };
  }

  /** Cc and Bcc recipients suppressed for the stream are left out of the envelope. */
  private unsuppressed(projectId: string, m: { stream: NewMessage["stream"]; scope: string }, rcpts: string[]): string[] {
    return rcpts.filter((r) => !isSuppressed(this.db, projectId, r, m.stream, m.scope));
  }

  private history(id: string, event: HistoryEvent, at: number): void {
    prepare(this.db, "INSERT INTO sent_message_events (message_id, event, at) VALUES (?, ?, ?)").run(id, event, at);
  }

  dispatchScheduled(id: string, relayName: string, _tx?: Tx): DispatchResult {
    return atomically(this.db, () => {
      const row = prepare(this.db, "SELECT * FROM sent_messages WHERE id = ?").get(id) as MessageRow | undefined;
      if (!row || row.status !== "scheduled") return { kind: "gone", status: row?.status ?? null };
      const now = this.clock.now();
      if (isSuppressed(this.db, row.project_id, row.to_addr, row.stream, row.scope)) {
        prepare(this.db, "UPDATE sent_messages SET status = 'suppressed', updated_at = ? WHERE id = ? AND status = 'scheduled'").run(now, id);
        return { kind: "dispatched", status: "suppressed" };
      }
      const others = this.unsuppressed(row.project_id, row, [...JSON.parse(row.cc), ...JSON.parse(row.bcc)]);
      const queueId = String(enqueueRelay(this.jobs, id, row.to_addr, others));
      const changed = prepare(this.db,
        "UPDATE sent_messages SET status = 'sent', relay = ?, relay_message_id = ?, sent_at = ?, updated_at = ? WHERE id = ? AND status = 'scheduled'",
      ).run(relayName, queueId, now, now, id).changes;
      if (Number(changed) !== 1) throw new Error(`message ${id} left scheduled during dispatch`);
      this.history(id, "sent", now);
      return { kind: "dispatched", status: "sent" };
    });
  }

  cancel(projectId: string, id: string): CancelResult {
    return atomically(this.db, () => {
      const changed = prepare(this.db,
        "UPDATE sent_messages SET status = 'canceled', updated_at = ? WHERE id = ? AND project_id = ? AND status = 'scheduled'",
      ).run(this.clock.now(), id, projectId).changes;
      if (Number(changed) === 1) {
        this.jobs.cancelWhere(DISPATCH_JOB, "$.messageId", id);
        return { kind: "canceled" };
      }
      const row = prepare(this.db, "SELECT status FROM sent_messages WHERE id = ? AND project_id = ?").get(id, projectId) as { status: MessageStatus } | undefined;
      return row ? { kind: "not_cancelable", status: row.status } : { kind: "not_found" };
    });
  }

  list(projectId: string, f: { limit: number; offset: number; status?: MessageStatus; campaign?: string }): MessageSummary[] {
    const sql = `SELECT id, to_addr, status, opens, clicks FROM sent_messages
       WHERE project_id = :p AND (:s IS NULL OR status = :s) AND (:c IS NULL OR campaign = :c)
       ORDER BY created_at DESC, id DESC LIMIT :l OFFSET :o`;
    const found = prepare(this.db, sql).all({ p: projectId, s: f.status ?? null, c: f.campaign ?? null, l: f.limit, o: f.offset }) as unknown as Pick<MessageRow, "id" | "to_addr" | "status" | "opens" | "clicks">[];
    return found.map((r) => ({ id: r.id, toAddr: r.to_addr, status: r.status, opens: r.opens, clicks: r.clicks }));
  }

  detail(projectId: string, id: string): MessageDetail | undefined {
    const r = prepare(this.db, "SELECT * FROM sent_messages WHERE id = ? AND project_id = ?").get(id, projectId) as MessageRow | undefined;
    if (!r) return undefined;
    const events = prepare(this.db, "SELECT event, at FROM sent_message_events WHERE message_id = ? ORDER BY at, rowid").all(id) as { event: HistoryEvent; at: number }[];
    const links = prepare(this.db, "SELECT idx, url, clicks FROM sent_message_links WHERE message_id = ? ORDER BY idx").all(id) as { idx: number; url: string; clicks: number }[];
    const attempts = prepare(this.db, "SELECT attempt, at, outcome, reason, host FROM sent_message_attempts WHERE message_id = ? ORDER BY attempt").all(id) as unknown as AttemptRow[];
    return {
      message: { id: r.id, status: r.status, relay: r.relay, relayMessageId: r.relay_message_id, toAddr: r.to_addr, opens: r.opens, clicks: r.clicks },
      events: withAttempts(events, attempts),
      links: links.map((l) => ({ idx: l.idx, url: l.url, clicks: l.clicks })),
    };
  }

  funnel(projectId: string, since: number, campaign?: string): FunnelCounts {
    const row = prepare(this.db,
      `SELECT COUNT(*) AS total, COALESCE(SUM(sent_at IS NOT NULL), 0) AS accepted, COALESCE(SUM(delivered_at IS NOT NULL), 0) AS delivered,
         COALESCE(SUM(opens > 0), 0) AS opened, COALESCE(SUM(clicks > 0), 0) AS clicked, COALESCE(SUM(status = 'bounced'), 0) AS bounced,
         COALESCE(SUM(status = 'soft_bounced'), 0) AS softBounced, COALESCE(SUM(status = 'complained'), 0) AS complained
       FROM sent_messages WHERE project_id = :p AND created_at >= :since AND (:c IS NULL OR campaign = :c)`,
    ).get({ p: projectId, since, c: campaign ?? null }) as unknown as FunnelCounts;
    return { ...row };
  }

  getForRelay(id: string): StoredMessage | undefined {
    const r = prepare(this.db, "SELECT * FROM sent_messages WHERE id = ?").get(id) as MessageRow | undefined;
    if (!r) return undefined;
    const attachments = prepare(this.db, "SELECT filename, content_type, content FROM sent_attachments WHERE message_id = ? ORDER BY idx").all(id) as {
      filename: string; content_type: string | null; content: Uint8Array;
    }[];
    return {
      id: r.id, projectId: r.project_id, status: r.status, from: r.from_addr, to: r.to_addr,
      cc: JSON.parse(r.cc), bcc: JSON.parse(r.bcc), replyTo: JSON.parse(r.reply_to), subject: r.subject,
      text: r.text_body ?? undefined, html: r.html_body ?? undefined, headers: JSON.parse(r.headers),
      category: r.category ?? undefined, campaign: r.campaign ?? undefined, stream: r.stream, scope: r.scope,
      track: r.track === 1, unsubscribe: r.unsubscribe === 1, rfcMessageId: r.rfc_message_id, returnPath: r.return_path,
      sendAt: r.send_at, relay: r.relay, relayMessageId: r.relay_message_id, opens: r.opens, clicks: r.clicks,
      createdAt: r.created_at, lastError: r.last_error,
      attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.content_type ?? undefined, content: Buffer.from(a.content) })),
    };
  }
}
