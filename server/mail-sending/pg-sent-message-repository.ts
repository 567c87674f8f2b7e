// The send side of outgoing mail on PostgreSQL (decision P1): sqlite-sent-message-repository.ts's
// behaviour for several instances. accept is one transaction: the idempotency check (under an
// advisory lock on the project and key, so a duplicate racing on another instance waits and then
// replays the first response; the primary key is the last guard), the messages, their relay or
// dispatch jobs and the stored response commit together. Dispatch and cancel stay conditional
// updates on the status, so of a cancel and a dispatch at once exactly one changes the row.
import type pg from "pg";
import { rows, type Pg, type Queryable } from "../db/postgres/pg.ts";
import type { Tx } from "../db/tx.ts";
import type { Clock } from "../jobs/clock.ts";
import type { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
import type {
  AcceptOutcome, AcceptRequest, AcceptResult, CancelResult, DispatchResult, FunnelCounts, HistoryEvent,
  MessageDetail, MessageStatus, MessageSummary, NewMessage, SentMessageRepository, StoredMessage,
} from "./message-repository.ts";
import { withAttempts, type AttemptRow } from "./attempt-history.ts";
import { pgIsSuppressed } from "./pg-suppression-rules.ts";
import { DISPATCH_JOB, RELAY_JOB, relayJobs, type DispatchJobPayload } from "./relay-jobs.ts";

const IDEMPOTENCY_MS = 24 * 3_600_000;

export interface PgMessageRow {
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
  track: boolean;
  unsubscribe: boolean;
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

export class PgSentMessageRepository implements SentMessageRepository {
  private readonly db: Pg;
  private readonly jobs: PgJobQueue;
  private readonly clock: Clock;

  constructor(db: Pg, jobs: PgJobQueue, clock: Clock) {
    this.db = db;
    this.jobs = jobs;
    this.clock = clock;
  }

  accept(request: AcceptRequest): Promise<AcceptResult> {
    return this.db.tx(async (c) => {
      const now = this.clock.now();
      const idem = request.idempotency;
      if (idem) {
        await c.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`idempotency:${request.projectId}:${idem.key}`]);
        const [prior] = await rows<{ body_hash: string; response: string; created_at: number }>(c,
          "SELECT body_hash, response, created_at FROM send_idempotency WHERE project_id = $1 AND key = $2", [request.projectId, idem.key]);
        if (prior && prior.created_at > now - IDEMPOTENCY_MS) {
          return prior.body_hash === idem.bodyHash ? { kind: "replay", response: JSON.parse(prior.response) } : { kind: "conflict" };
        }
        if (prior) await c.query("DELETE FROM send_idempotency WHERE project_id = $1 AND key = $2", [request.projectId, idem.key]);
      }
      const outcomes: AcceptOutcome[] = [];
      for (const m of request.messages) outcomes.push(await this.insert(c, request.projectId, m, request.relayName, now));
      await request.alsoWrite?.(outcomes, { kind: "postgres", c });
      const response = request.respond(outcomes);
      if (idem) {
        await c.query("INSERT INTO send_idempotency (project_id, key, body_hash, response, created_at) VALUES ($1, $2, $3, $4, $5)",
          [request.projectId, idem.key, idem.bodyHash, JSON.stringify(response), now]);
      }
      return { kind: "accepted", response } as AcceptResult;
    });
  }

  private async enqueueRelay(c: Queryable, messageId: string, to: string, others: string[]): Promise<number> {
    const ids: number[] = [];
    for (const j of relayJobs(messageId, to, others)) ids.push(await this.jobs.enqueue(c, RELAY_JOB, j.payload, { group: j.group }));
    return ids[0];
  }

  private async insert(c: pg.PoolClient, projectId: string, m: NewMessage, relayName: string, now: number): Promise<AcceptOutcome> {
    let status: MessageStatus;
    let relay: string | null = null;
    let relayMessageId: string | null = null;
    if (m.sendAt !== undefined) {
      status = "scheduled";
      await this.jobs.enqueue(c, DISPATCH_JOB, { messageId: m.id } satisfies DispatchJobPayload, { runAt: m.sendAt });
    } else if (await pgIsSuppressed(c, projectId, m.to, m.stream, m.scope)) {
      status = "suppressed";
    } else {
      status = "sent";
      relay = relayName;
      relayMessageId = String(await this.enqueueRelay(c, m.id, m.to, await this.unsuppressed(c, projectId, m, [...m.cc, ...m.bcc])));
    }
    // The row and its "sent" history event in one named statement: a round trip less per accepted
    // message, and no planning after a session's first (server/README.md, Benchmarks).
    await c.query({
      name: "sent-message-insert",
      text: `WITH message AS (
         INSERT INTO sent_messages (id, project_id, status, from_addr, to_addr, cc, bcc, reply_to, subject, text_body, html_body, headers,
           category, campaign, stream, scope, track, unsubscribe, rfc_message_id, return_path, send_at, relay, relay_message_id,
           created_at, sent_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)
         RETURNING id, status, created_at)
       INSERT INTO sent_message_events (message_id, event, at) SELECT id, 'sent', created_at FROM message WHERE status = 'sent'`,
      values: [
        m.id, projectId, status, m.from, m.to, JSON.stringify(m.cc), JSON.stringify(m.bcc), JSON.stringify(m.replyTo), m.subject,
        m.text ?? null, m.html ?? null, JSON.stringify(m.headers), m.category ?? null, m.campaign ?? null, m.stream, m.scope,
        m.track, m.unsubscribe, m.rfcMessageId, m.returnPath, m.sendAt ?? null, relay, relayMessageId,
        now, status === "sent" ? now : null, now,
      ],
    });
    for (const [idx, a] of m.attachments.entries()) {
      await c.query("INSERT INTO sent_attachments (message_id, idx, filename, content_type, content) VALUES ($1, $2, $3, $4, $5)", [m.id, idx, a.filename, a.contentType ?? null, a.content]);
    }
    if (m.links.length) {
      await c.query("INSERT INTO sent_message_links (message_id, idx, url) SELECT $1, i - 1, u FROM unnest($2::text[]) WITH ORDINALITY AS l (u, i)", [m.id, m.links]);
    }
    return { id: m.id, to: m.to, status, relay, relayMessageId };
  }

  /** Cc and Bcc recipients suppressed for the stream are left out of the envelope. */
  private async unsuppressed(c: Queryable, projectId: string, m: { stream: NewMessage["stream"]; scope: string }, rcpts: string[]): Promise<string[]> {
    const kept: string[] = [];
    for (const r of rcpts) if (!(await pgIsSuppressed(c, projectId, r, m.stream, m.scope))) kept.push(r);
    return kept;
  }

  /**
   * A scheduled message whose time came: scheduled -> sent (or suppressed), on the dispatch job's
   * transaction `tx` (or one of its own). The row is locked first, so a cancel on another
   * instance either happened before (gone) or waits and then finds it sent.
   */
  dispatchScheduled(id: string, relayName: string, tx?: Tx): Promise<DispatchResult> {
    if (!tx) return this.db.tx((c) => this.dispatch(c, id, relayName));
    if (tx.kind !== "postgres") return Promise.reject(new Error("the PostgreSQL sent messages were handed a SQLite transaction"));
    return this.dispatch(tx.c, id, relayName);
  }

  private async dispatch(c: Queryable, id: string, relayName: string): Promise<DispatchResult> {
    const [row] = await rows<PgMessageRow>(c, "SELECT * FROM sent_messages WHERE id = $1 FOR UPDATE", [id]);
    if (!row || row.status !== "scheduled") return { kind: "gone", status: row?.status ?? null };
    const now = this.clock.now();
    if (await pgIsSuppressed(c, row.project_id, row.to_addr, row.stream, row.scope)) {
      await c.query("UPDATE sent_messages SET status = 'suppressed', updated_at = $1 WHERE id = $2 AND status = 'scheduled'", [now, id]);
      return { kind: "dispatched", status: "suppressed" };
    }
    const others = await this.unsuppressed(c, row.project_id, row, [...JSON.parse(row.cc), ...JSON.parse(row.bcc)]);
    const queueId = String(await this.enqueueRelay(c, id, row.to_addr, others));
    const r = await c.query("UPDATE sent_messages SET status = 'sent', relay = $1, relay_message_id = $2, sent_at = $3, updated_at = $3 WHERE id = $4 AND status = 'scheduled'", [relayName, queueId, now, id]);
    if (r.rowCount !== 1) throw new Error(`message ${id} left scheduled during dispatch`);
    await history(c, id, "sent", now);
    return { kind: "dispatched", status: "sent" };
  }

  cancel(projectId: string, id: string): Promise<CancelResult> {
    return this.db.tx(async (c) => {
      const r = await c.query("UPDATE sent_messages SET status = 'canceled', updated_at = $1 WHERE id = $2 AND project_id = $3 AND status = 'scheduled'", [this.clock.now(), id, projectId]);
      if (r.rowCount === 1) {
        await this.jobs.cancelWhere(c, DISPATCH_JOB, "$.messageId", id);
        return { kind: "canceled" } as CancelResult;
      }
      const [row] = await rows<{ status: MessageStatus }>(c, "SELECT status FROM sent_messages WHERE id = $1 AND project_id = $2", [id, projectId]);
      return row ? { kind: "not_cancelable", status: row.status } : { kind: "not_found" };
    });
  }

  async list(projectId: string, f: { limit: number; offset: number; status?: MessageStatus; campaign?: string }): Promise<MessageSummary[]> {
    const found = await this.db.query<Pick<PgMessageRow, "id" | "to_addr" | "status" | "opens" | "clicks">>(
      `SELECT id, to_addr, status, opens, clicks FROM sent_messages
       WHERE project_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR campaign = $3)
       ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
      [projectId, f.status ?? null, f.campaign ?? null, f.limit, f.offset],
    );
    return found.map((r) => ({ id: r.id, toAddr: r.to_addr, status: r.status, opens: r.opens, clicks: r.clicks }));
  }

  async detail(projectId: string, id: string): Promise<MessageDetail | undefined> {
    const [r] = await this.db.query<PgMessageRow>("SELECT * FROM sent_messages WHERE id = $1 AND project_id = $2", [id, projectId]);
    if (!r) return undefined;
    const events = await this.db.query<{ event: HistoryEvent; at: number }>("SELECT event, at FROM sent_message_events WHERE message_id = $1 ORDER BY at, seq", [id]);
    const links = await this.db.query<{ idx: number; url: string; clicks: number }>("SELECT idx, url, clicks FROM sent_message_links WHERE message_id = $1 ORDER BY idx", [id]);
    const attempts = await this.db.query<AttemptRow>("SELECT attempt, at, outcome, reason, host FROM sent_message_attempts WHERE message_id = $1 ORDER BY attempt", [id]);
    return {
      message: { id: r.id, status: r.status, relay: r.relay, relayMessageId: r.relay_message_id, toAddr: r.to_addr, opens: r.opens, clicks: r.clicks },
      events: withAttempts(events, attempts),
      links: links.map((l) => ({ idx: l.idx, url: l.url, clicks: l.clicks })),
    };
  }

  async funnel(projectId: string, since: number, campaign?: string): Promise<FunnelCounts> {
    const [row] = await this.db.query<FunnelCounts>(
      `SELECT COUNT(*)::int AS total, COUNT(*) FILTER (WHERE sent_at IS NOT NULL)::int AS accepted, COUNT(*) FILTER (WHERE delivered_at IS NOT NULL)::int AS delivered,
         COUNT(*) FILTER (WHERE opens > 0)::int AS opened, COUNT(*) FILTER (WHERE clicks > 0)::int AS clicked, COUNT(*) FILTER (WHERE status = 'bounced')::int AS bounced,
         COUNT(*) FILTER (WHERE status = 'soft_bounced')::int AS "softBounced", COUNT(*) FILTER (WHERE status = 'complained')::int AS complained
       FROM sent_messages WHERE project_id = $1 AND created_at >= $2 AND ($3::text IS NULL OR campaign = $3)`,
      [projectId, since, campaign ?? null],
    );
    return { ...row };
  }

  /** The relay's view: everything needed to compose and deliver. */
  async getForRelay(id: string): Promise<StoredMessage | undefined> {
    const [r] = await this.db.query<PgMessageRow>("SELECT * FROM sent_messages WHERE id = $1", [id]);
    if (!r) return undefined;
    const attachments = await this.db.query<{ filename: string; content_type: string | null; content: Buffer }>(
      "SELECT filename, content_type, content FROM sent_attachments WHERE message_id = $1 ORDER BY idx", [id]);
    return {
      id: r.id, projectId: r.project_id, status: r.status, from: r.from_addr, to: r.to_addr,
      cc: JSON.parse(r.cc), bcc: JSON.parse(r.bcc), replyTo: JSON.parse(r.reply_to), subject: r.subject,
      text: r.text_body ?? undefined, html: r.html_body ?? undefined, headers: JSON.parse(r.headers),
      category: r.category ?? undefined, campaign: r.campaign ?? undefined, stream: r.stream, scope: r.scope,
      track: r.track, unsubscribe: r.unsubscribe, rfcMessageId: r.rfc_message_id, returnPath: r.return_path,
      sendAt: r.send_at, relay: r.relay, relayMessageId: r.relay_message_id, opens: r.opens, clicks: r.clicks,
      createdAt: r.created_at, lastError: r.last_error,
      attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.content_type ?? undefined, content: a.content })),
    };
  }
}

export async function history(c: Queryable, id: string, event: HistoryEvent, at: number): Promise<void> {
  await c.query("INSERT INTO sent_message_events (message_id, event, at) VALUES ($1, $2, $3)", [id, event, at]);
}
