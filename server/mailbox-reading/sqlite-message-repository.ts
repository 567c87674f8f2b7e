// Reading received mail from SQLite. The page is read newest first from the narrow index
// (mailbox_id, received_ms, uid) and stops after offset + limit rows; the total without filters
// is a per-mailbox counter, with `since`/`before`/`hasAttachment`/`with` an index range. The
// substring filters `from` and `to` are answered from the mailbox's distinct address lists
// (migrations.ts, version 42): the needle is tested once per distinct list, never per message.
// Numbers for 100,000 messages are in server/README.md.
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
  quarantined: number;
}

const SUMMARY = "uid, subject, received_ms, has_attachment, rfc_message_id, from_json, preview, quarantined";
const NEWEST_FIRST = "ORDER BY received_ms DESC, uid DESC";

const toSummary = (r: SummaryRow): MessageSummaryRecord => ({
  uid: r.uid,
  subject: r.subject,
  receivedMs: r.received_ms,
  hasAttachment: r.has_attachment === 1,
  rfcMessageId: r.rfc_message_id,
  from: JSON.parse(r.from_json),
  preview: r.preview,
  quarantined: r.quarantined === 1,
});

/**
 * How a substring filter (`from`, `to`) is tested: on each row's own address list ("row"), or as
 * membership of that list among the mailbox's distinct lists that contain the needle ("lists",
 * read through the index on (mailbox, list, time)). Both are the same instr() on the same string.
 */
type SubstringTest = "row" | "lists";

/**
 * The WHERE clause of a mailbox, a time range and the list's filters, with its parameters.
 * `known` holds the matching lists of the filter's first substring role when they were already
 * read (as a JSON array): the "lists" test then looks them up instead of testing every distinct
 * list of the mailbox again.
 */
function where(mailboxId: string, f: Range & Partial<ListFilter>, substring: SubstringTest = "row", known?: string): { sql: string; params: SQLInputValue[] } {
  const clauses = ["mailbox_id = ?"];
  const params: SQLInputValue[] = [mailboxId];
  const add = (clause: string, ...values: SQLInputValue[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (f.fromMs !== undefined) add("received_ms >= ?", f.fromMs);
  if (f.beforeMs !== undefined) add("received_ms < ?", f.beforeMs);
  if (f.hasAttachment !== undefined) add("has_attachment = ?", f.hasAttachment ? 1 : 0);
  if (f.with !== undefined) {
    add("uid IN (SELECT uid FROM mailbox_message_addresses WHERE mailbox_id = ? AND address = ?)", mailboxId, f.with);
  }
  for (const role of ["from", "to"] as const) {
    const needle = f[role];
    if (needle === undefined) continue;
    // Addresses hold no spaces; a filter with one would match across two addresses, so it matches nothing.
    if (/\s/.test(needle)) add("0");
    else if (substring === "row") add(`instr(${role}_addrs, ?) > 0`, needle);
    else if (known !== undefined && role === (f.from !== undefined ? "from" : "to")) add(`${role}_addrs IN (SELECT value FROM json_each(?))`, known);
    else add(`${role}_addrs IN (SELECT addrs FROM ${matchingLists(role)})`, mailboxId, needle);
  }
  return { sql: clauses.join(" AND "), params };
}

/** The distinct address lists of a mailbox (parameters: mailbox, needle) that contain a needle. */
const matchingLists = (role: "from" | "to") => `mailbox_address_lists WHERE mailbox_id = ? AND role = '${role}' AND instr(addrs, ?) > 0`;

type Where = { sql: string; params: SQLInputValue[] };

/**
 * Up to this many matching lists are read out with their counts and handed to the page's query,
 * so the needle is tested once per distinct list, not once for the counts and again for the page.
 * Past it (a needle most senders share) the page walks the rows anyway, or tests the lists again.
 */
const KNOWN_LISTS = 1000;

/** A time range with at most this many messages is filtered by testing each (well under a millisecond). */
const SHORT_RANGE = 1000;

export interface MessageRepositoryOptions {
  /** Tests set it to 0 so that small mailboxes go through the address lists too. */
  shortRange?: number;
  /** Tests set it to 0 so that the page tests the lists again, as with a needle most senders share. */
  knownLists?: number;
}

export class SqliteMessageRepository implements MessageRepository {
  private readonly db: DatabaseSync;
  private readonly shortRange: number;
  private readonly knownLists: number;

  constructor(db: DatabaseSync, options: MessageRepositoryOptions = {}) {
    this.db = db;
    this.shortRange = options.shortRange ?? SHORT_RANGE;
    this.knownLists = options.knownLists ?? KNOWN_LISTS;
  }

  async list(mailboxId: string, filter: ListFilter): Promise<{ messages: MessageSummaryRecord[]; total: number }> {
    if (filter.from === undefined && filter.to === undefined) {
      const w = where(mailboxId, filter);
      const rows = this.page(w, filter);
      return { messages: rows.map(toSummary), total: this.total(mailboxId, filter, w, rows.length) };
    }
    return this.listBySubstring(mailboxId, filter);
  }

  /**
   * `from` or `to`. Two ways read the same rows: walking the mailbox newest first and testing
   * each row, which costs the rows walked; or reading the index entries of the matching lists
   * and sorting them, which costs a seek per matching list plus the entries in range. The
   * matching lists' counts (one pass over the mailbox's distinct lists) give the total of a
   * lone substring filter and the estimates to choose by.
   */
  private listBySubstring(mailboxId: string, filter: ListFilter): { messages: MessageSummaryRecord[]; total: number } {
    const role = filter.from !== undefined ? "from" : "to";
    const needle = filter[role]!;
    if (/\s/.test(needle) || (filter.from !== undefined && /\s/.test(filter.to ?? ""))) return { messages: [], total: 0 };
    const ranged = filter.fromMs !== undefined || filter.beforeMs !== undefined;
    if (ranged && this.countInRange(mailboxId, filter, this.shortRange + 1) <= this.shortRange) {
      // A short time range (the last hour of a busy mailbox): testing its few rows costs less
      // than going through the mailbox's distinct lists at all.
      const w = where(mailboxId, filter, "row");
      const total = (prepare(this.db, `SELECT COUNT(*) AS total FROM mailbox_messages INDEXED BY mailbox_messages_newest WHERE ${w.sql}`).get(...w.params) as { total: number }).total;
      return { messages: total > filter.offset ? this.page(w, filter, "mailbox_messages_newest").map(toSummary) : [], total };
    }
    const lists = prepare(this.db,
      `SELECT COUNT(*) AS lists, COALESCE(SUM(messages), 0) AS messages,
              CASE WHEN COUNT(*) <= ? THEN json_group_array(addrs) END AS known
       FROM ${matchingLists(role)}`,
    ).get(this.knownLists, mailboxId, needle) as { lists: number; messages: number; known: string | null };
    const known = lists.known ?? undefined;
    if (lists.messages === 0) return { messages: [], total: 0 };
    const all = this.count(mailboxId);
    const inRange = ranged ? this.countInRange(mailboxId, filter) : all;
    // Rows walked against seeks into each matching list plus that list's entries in the range.
    const walkIsCheaper = (rowsWalked: number) => rowsWalked <= 2 * lists.lists + (lists.messages * inRange) / Math.max(all, 1);
    const way = (rowsWalked: number): { w: Where; index: string } =>
      walkIsCheaper(rowsWalked)
        ? { w: where(mailboxId, filter, "row"), index: "mailbox_messages_newest" }
        : { w: where(mailboxId, filter, "lists", known), index: `mailbox_messages_${role}` };

    const alone = !ranged && filter.hasAttachment === undefined && filter.with === undefined && (role === "to" || filter.to === undefined);
    let total = lists.messages;
    if (!alone) {
      const { w, index } = way(inRange);
      total = (prepare(this.db, `SELECT COUNT(*) AS total FROM mailbox_messages INDEXED BY ${index} WHERE ${w.sql}`).get(...w.params) as { total: number }).total;
    }
    if (total === 0 || filter.offset >= total) return { messages: [], total };
    // Walking finds offset + limit matches after about that many rows times inRange / total.
    const { w, index } = way(((filter.offset + filter.limit) * inRange) / total);
    return { messages: this.page(w, filter, index).map(toSummary), total };
  }

  private page(w: Where, filter: ListFilter, index?: string): SummaryRow[] {
    const from = index ? `mailbox_messages INDEXED BY ${index}` : "mailbox_messages";
    return prepare(this.db, `SELECT ${SUMMARY} FROM ${from} WHERE ${w.sql} ${NEWEST_FIRST} LIMIT ? OFFSET ?`).all(
      ...w.params, filter.limit, filter.offset,
    ) as unknown as SummaryRow[];
  }

  /** The mailbox's messages, kept by triggers. */
  private count(mailboxId: string): number {
    const row = prepare(this.db, "SELECT messages FROM mailbox_message_counts WHERE mailbox_id = ?").get(mailboxId) as { messages: number } | undefined;
    return row?.messages ?? 0;
  }

  /** The mailbox's messages in the filter's time range (counting stops at `upTo`), from the narrow time index alone. */
  private countInRange(mailboxId: string, filter: Range, upTo = Number.MAX_SAFE_INTEGER): number {
    return (prepare(this.db,
      "SELECT COUNT(*) AS n FROM (SELECT 1 FROM mailbox_messages INDEXED BY mailbox_messages_newest WHERE mailbox_id = ? AND received_ms >= ? AND received_ms < ? LIMIT ?)",
    ).get(mailboxId, filter.fromMs ?? Number.MIN_SAFE_INTEGER, filter.beforeMs ?? Number.MAX_SAFE_INTEGER, upTo) as { n: number }).n;
  }

  private total(mailboxId: string, filter: ListFilter, w: Where, returned: number): number {
    // A page that is not full, and not past the end, has seen every match.
    if (returned > 0 && returned < filter.limit) return filter.offset + returned;
    const unfiltered = filter.fromMs === undefined && filter.beforeMs === undefined && filter.hasAttachment === undefined && filter.with === undefined;
    if (unfiltered) return this.count(mailboxId);
    if (filter.with !== undefined && filter.hasAttachment === undefined) {
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

  async getRaw(mailboxId: string, uid: number): Promise<Buffer | undefined> {
    const row = prepare(this.db,
      "SELECT c.raw FROM mailbox_messages m JOIN message_contents c ON c.id = m.content_id WHERE m.mailbox_id = ? AND m.uid = ?",
    ).get(mailboxId, uid) as { raw: Uint8Array } | undefined;
    return row && Buffer.from(row.raw.buffer, row.raw.byteOffset, row.raw.byteLength);
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
