// Reading received mail from SQLite. Every query walks the index (mailbox_id, received_ms, uid):
// the page is read newest first from the index and stops after offset + limit rows; the total
// without filters is counted from the index alone. Address filters test the row's address
// columns while walking (see migrations.ts for their layout), so their cost grows with the
// mailbox; numbers for 100,000 messages are in server/README.md.
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import type { MessageDetail } from "../inbound/delivery-repository.ts";
import type { ListFilter, LookupResult, MessageRecord, MessageRepository, MessageSummaryRecord, Range } from "./message-repository.ts";

interface SummaryRow {
  uid: number;
  subject: string;
  received_ms: number;
  has_attachment: number;
  rfc_message_id: string;
  from_json: string;
  preview: string;
}

const SUMMARY = "uid, subject, received_ms, has_attachment, rfc_message_id, from_json, preview";
const NEWEST_FIRST = "ORDER BY received_ms DESC, uid DESC";

const toSummary = (r: SummaryRow): MessageSummaryRecord => ({
  uid: r.uid,
  subject: r.subject,
  receivedMs: r.received_ms,
  hasAttachment: r.has_attachment === 1,
  rfcMessageId: r.rfc_message_id,
  from: JSON.parse(r.from_json),
  preview: r.preview,
});

/** The WHERE clause of a mailbox, a time range and the list's filters, with its parameters. */
function where(mailboxId: string, f: Range & Partial<ListFilter>): { sql: string; params: SQLInputValue[] } {
  const clauses = ["mailbox_id = ?"];
  const params: SQLInputValue[] = [mailboxId];
  const add = (clause: string, ...values: SQLInputValue[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (f.fromMs !== undefined) add("received_ms >= ?", f.fromMs);
  if (f.beforeMs !== undefined) add("received_ms < ?", f.beforeMs);
  if (f.hasAttachment !== undefined) add("has_attachment = ?", f.hasAttachment ? 1 : 0);
  // Addresses hold no spaces; a filter with one would match across two addresses, so it matches nothing.
  const noSpace = (v: string) => !/\s/.test(v);
  if (f.with !== undefined) {
    add("uid IN (SELECT uid FROM mailbox_message_addresses WHERE mailbox_id = ? AND address = ?)", mailboxId, f.with);
  }
  if (f.from !== undefined) {
    if (noSpace(f.from)) add("instr(from_addrs, ?) > 0", f.from);
    else add("0");
  }
  if (f.to !== undefined) {
    if (noSpace(f.to)) add("instr(to_addrs, ?) > 0", f.to);
    else add("0");
  }
  return { sql: clauses.join(" AND "), params };
}

export class SqliteMessageRepository implements MessageRepository {
  private readonly db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  async list(mailboxId: string, filter: ListFilter): Promise<{ messages: MessageSummaryRecord[]; total: number }> {
    const w = where(mailboxId, filter);
    const rows = prepare(this.db, `SELECT ${SUMMARY} FROM mailbox_messages WHERE ${w.sql} ${NEWEST_FIRST} LIMIT ? OFFSET ?`).all(
      ...w.params, filter.limit, filter.offset,
    ) as unknown as SummaryRow[];
    return { messages: rows.map(toSummary), total: this.total(mailboxId, filter, w, rows.length) };
  }

  private total(mailboxId: string, filter: ListFilter, w: { sql: string; params: SQLInputValue[] }, returned: number): number {
    // A page that is not full, and not past the end, has seen every match.
    if (returned > 0 && returned < filter.limit) return filter.offset + returned;
    const unfiltered = Object.values({ ...filter, limit: undefined, offset: undefined }).every((v) => v === undefined);
    if (unfiltered) {
      const row = prepare(this.db, "SELECT messages FROM mailbox_message_counts WHERE mailbox_id = ?").get(mailboxId) as { messages: number } | undefined;
      return row?.messages ?? 0;
    }
    if (filter.with !== undefined && filter.hasAttachment === undefined && filter.from === undefined && filter.to === undefined) {
      // Only `with` and a time range: counted in the address index alone.
      const range = [filter.fromMs ?? Number.MIN_SAFE_INTEGER, filter.beforeMs ?? Number.MAX_SAFE_INTEGER];
      return (prepare(this.db, "SELECT COUNT(*) AS total FROM mailbox_message_addresses WHERE mailbox_id = ? AND address = ? AND received_ms >= ? AND received_ms < ?")
        .get(mailboxId, filter.with, ...range) as { total: number }).total;
    }
    return (prepare(this.db, `SELECT COUNT(*) AS total FROM mailbox_messages WHERE ${w.sql}`).get(...w.params) as { total: number }).total;
  }

  async get(mailboxId: string, uid: number): Promise<MessageRecord | undefined> {
    const row = prepare(this.db,
      `SELECT ${SUMMARY}, c.detail FROM mailbox_messages m JOIN message_contents c ON c.id = m.content_id WHERE m.mailbox_id = ? AND m.uid = ?`,
    ).get(mailboxId, uid) as (SummaryRow & { detail: string }) | undefined;
    return row && { ...toSummary(row), detail: JSON.parse(row.detail) as MessageDetail };
  }

  async findByMessageId(mailboxId: string, rfcMessageId: string, range: Range): Promise<LookupResult> {
    const w = where(mailboxId, range);
    const exact = prepare(this.db,
      `SELECT uid, subject, rfc_message_id, received_ms FROM mailbox_messages WHERE ${w.sql} AND rfc_message_id = ? ${NEWEST_FIRST} LIMIT 1`,
    ).get(...w.params, rfcMessageId) as { uid: number; subject: string; rfc_message_id: string; received_ms: number } | undefined;
    if (exact) return { found: found(exact), source: "index", scanned: 1, reachedBackMs: exact.received_ms };

    // Not under that exact key: the domain part of a Message-ID is case-insensitive and some
    // software rewrites case, so the range is scanned comparing without case.
    const scanned = prepare(this.db,
      `SELECT uid, subject, rfc_message_id, received_ms FROM mailbox_messages WHERE ${w.sql} AND lower(rfc_message_id) = lower(?) ${NEWEST_FIRST} LIMIT 1`,
    ).get(...w.params, rfcMessageId) as { uid: number; subject: string; rfc_message_id: string; received_ms: number } | undefined;
    if (scanned) {
      const { n } = prepare(this.db,
        `SELECT COUNT(*) AS n FROM mailbox_messages WHERE ${w.sql} AND (received_ms > ? OR (received_ms = ? AND uid >= ?))`,
      ).get(...w.params, scanned.received_ms, scanned.received_ms, scanned.uid) as { n: number };
      return { found: found(scanned), source: "scan", scanned: n, reachedBackMs: scanned.received_ms };
    }
    const all = prepare(this.db, `SELECT COUNT(*) AS n, MIN(received_ms) AS oldest FROM mailbox_messages WHERE ${w.sql}`).get(...w.params) as { n: number; oldest: number | null };
    return { source: "scan", scanned: all.n, reachedBackMs: all.oldest ?? undefined };
  }
}

function found(r: { uid: number; subject: string; rfc_message_id: string }) {
  return { uid: r.uid, subject: r.subject, rfcMessageId: r.rfc_message_id };
}
