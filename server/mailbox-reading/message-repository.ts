// The storage boundary of reading received mail: the list with the seed's filters, one message,
// and the lookup by Message-ID. Every method is scoped to one mailbox, whose project the handler
// has already checked. Written once over Sql (db/sql.ts) for SQLite and PostgreSQL.
//
// The page is read newest first on (mailbox_id, received_ms, uid) and stops after offset + limit
// rows; lists read the summary columns only, never the raw bytes. The total without filters is a
// per-mailbox counter, with `since`/`before`/`hasAttachment`/`with` an index range. The substring
// filters `from` and `to` test the lowercased address lists for the needle (the handler
// lowercases it) with Dialect.contains: instr() on SQLite, LIKE on PostgreSQL. Where the schema
// keeps each mailbox's distinct address lists (SQLite's, migrations.ts), they answer those filters: the needle is tested once per distinct list, never per message.
// Where it does not (PostgreSQL's), pg_trgm GIN indexes answer the LIKE for needles of three
// characters or more. Numbers for 100,000 messages are in server/README.md.
import { bool, type Dialect, type Param, type Sql } from "../db/sql.ts";
import type { Address, MessageDetail } from "../inbound/stored-message.ts";

export interface ListFilter {
  limit: number;
  offset: number;
  /** Only messages received at or after this instant (the handler applies the same-second rule). */
  fromMs?: number;
  /** Only messages received before this instant. */
  beforeMs?: number;
  hasAttachment?: boolean;
  /** Lowercased: an exact sender or recipient address. */
  with?: string;
  /** Lowercased substrings of a sender or a recipient address. */
  from?: string;
  to?: string;
}

/** A message id of the API (its number inside the mailbox, M4) as a number; undefined when it cannot be one. */
export const uidOf = (id: string): number | undefined => (/^[1-9]\d{0,14}$/.test(id) ? Number(id) : undefined);

export interface MessageSummaryRecord {
  uid: number;
  subject: string;
  receivedMs: number;
  hasAttachment: boolean;
  rfcMessageId: string;
  from: Address[];
  preview: string;
  /** Its From domain failed DMARC with policy quarantine (decision I3). */
  quarantined: boolean;
}

export interface MessageRecord extends MessageSummaryRecord {
  detail: MessageDetail;
}

export interface Range {
  fromMs?: number;
  beforeMs?: number;
}

export interface LookupResult {
  found?: { uid: number; subject: string; rfcMessageId: string };
  source: "index" | "scan";
  scanned: number;
  /** The oldest receive time examined; undefined when nothing was. */
  reachedBackMs?: number;
}

export interface MessageRepository {
  list(mailboxId: string, filter: ListFilter): Promise<{ messages: MessageSummaryRecord[]; total: number }>;
  get(mailboxId: string, uid: number): Promise<MessageRecord | undefined>;
  /** The message's bytes as stored (RFC 5322, with the trace headers added at receipt). */
  getRaw(mailboxId: string, uid: number): Promise<Buffer | undefined>;
  findByMessageId(mailboxId: string, rfcMessageId: string, range: Range): Promise<LookupResult>;
}

interface SummaryRow {
  uid: number;
  subject: string;
  received_ms: number;
  has_attachment: unknown;
  rfc_message_id: string;
  from_json: string;
  preview: string;
  quarantined: unknown;
}

const SUMMARY = "uid, subject, received_ms, has_attachment, rfc_message_id, from_json, preview, quarantined";
const NEWEST_FIRST = "ORDER BY received_ms DESC, uid DESC";

const toSummary = (r: SummaryRow): MessageSummaryRecord => ({
  uid: Number(r.uid),
  subject: r.subject,
  receivedMs: Number(r.received_ms),
  hasAttachment: bool(r.has_attachment),
  rfcMessageId: r.rfc_message_id,
  from: JSON.parse(r.from_json),
  preview: r.preview,
  quarantined: bool(r.quarantined),
});


/** An id that is no INTEGER names no message (PostgreSQL would refuse the parameter). */
const isUid = (uid: number) => Number.isInteger(uid) && Math.abs(uid) <= 2 ** 31 - 1;

/**
 * How a substring filter (`from`, `to`) is tested: on each row's own address list ("row"), or as
 * membership of that list among the mailbox's distinct lists that contain the needle ("lists",
 * read through the index on (mailbox, list, time)). Both are the same test on the same string.
 */
type SubstringTest = "row" | "lists";

type Where = { sql: string; params: Param[] };

/** The distinct address lists of a mailbox (parameters: mailbox, needle) that contain a needle. */
const matchingLists = (d: Dialect, role: "from" | "to") => `mailbox_address_lists WHERE mailbox_id = ? AND role = '${role}' AND ${d.contains("addrs")}`;

/**
 * Up to this many matching lists are read out with their counts and handed to the page's query,
 * so the needle is tested once per distinct list, not once for the counts and again for the page.
 * Past it (a needle most senders share) the page walks the rows anyway, or tests the lists again.
 */
const KNOWN_LISTS = 1000;

/** A time range with at most this many messages is filtered by testing each (well under a millisecond). */
const SHORT_RANGE = 1000;

export interface MessageRepositoryOptions {
  /**
   * The schema keeps each mailbox's distinct sender and recipient lists with their counts
   * (mailbox_address_lists, SQLite's migrations.ts): the substring filters read them.
   */
  addressLists: boolean;
  /** Tests set it to 0 so that small mailboxes go through the address lists too. */
  shortRange?: number;
  /** Tests set it to 0 so that the page tests the lists again, as with a needle most senders share. */
  knownLists?: number;
}

/** Received mail read from either store. */
export class SqlMessageRepository implements MessageRepository {
  private readonly db: Sql;
  private readonly addressLists: boolean;
  private readonly shortRange: number;
  private readonly knownLists: number;

  constructor(db: Sql, options: MessageRepositoryOptions) {
    this.db = db;
    this.addressLists = options.addressLists;
    this.shortRange = options.shortRange ?? SHORT_RANGE;
    this.knownLists = options.knownLists ?? KNOWN_LISTS;
  }

  /**
   * The WHERE clause of a mailbox, a time range and the list's filters, with its parameters.
   * `known` holds the matching lists of the filter's first substring role when they were already
   * read (as a JSON array): the "lists" test then looks them up instead of testing every distinct
   * list of the mailbox again.
   */
  private where(mailboxId: string, f: Range & Partial<ListFilter>, substring: SubstringTest = "row", known?: string): Where {
    const d = this.db.dialect;
    const clauses = ["mailbox_id = ?"];
    const params: Param[] = [mailboxId];
    const add = (clause: string, ...values: Param[]) => {
      clauses.push(clause);
      params.push(...values);
    };
    if (f.fromMs !== undefined) add("received_ms >= ?", f.fromMs);
    if (f.beforeMs !== undefined) add("received_ms < ?", f.beforeMs);
    if (f.hasAttachment !== undefined) add("has_attachment = ?", f.hasAttachment);
    if (f.with !== undefined) add("uid IN (SELECT uid FROM mailbox_message_addresses WHERE mailbox_id = ? AND address = ?)", mailboxId, f.with);
    for (const role of ["from", "to"] as const) {
      const needle = f[role];
      if (needle === undefined) continue;
      // Addresses hold no spaces; a filter with one would match across two addresses, so it matches nothing.
      if (/\s/.test(needle)) add("1 = 0");
      else if (substring === "row") add(d.contains(`${role}_addrs`), d.needle(needle));
      else if (known !== undefined && role === (f.from !== undefined ? "from" : "to")) add(`${role}_addrs IN (SELECT value FROM ${this.db.dialect.jsonArray("?")})`, known);
      else add(`${role}_addrs IN (SELECT addrs FROM ${matchingLists(d, role)})`, mailboxId, d.needle(needle));
    }
    return { sql: clauses.join(" AND "), params };
  }

  async list(mailboxId: string, filter: ListFilter): Promise<{ messages: MessageSummaryRecord[]; total: number }> {
    if (this.addressLists && (filter.from !== undefined || filter.to !== undefined)) return this.listBySubstring(mailboxId, filter);
    const w = this.where(mailboxId, filter);
    const rows = await this.page(w, filter);
    return { messages: rows.map(toSummary), total: await this.total(mailboxId, filter, w, rows.length) };
  }

  /**
   * `from` or `to` through the address lists. Two ways read the same rows: walking the mailbox
   * newest first and testing each row, which costs the rows walked; or reading the index entries
   * of the matching lists and sorting them, which costs a seek per matching list plus the entries
   * in range. The matching lists' counts (one pass over the mailbox's distinct lists) give the
   * total of a lone substring filter and the estimates to choose by.
   */
  private async listBySubstring(mailboxId: string, filter: ListFilter): Promise<{ messages: MessageSummaryRecord[]; total: number }> {
    const role = filter.from !== undefined ? "from" : "to";
    const needle = filter[role]!;
    if (/\s/.test(needle) || (filter.from !== undefined && /\s/.test(filter.to ?? ""))) return { messages: [], total: 0 };
    const d = this.db.dialect;
    const ranged = filter.fromMs !== undefined || filter.beforeMs !== undefined;
    if (ranged && (await this.countInRange(mailboxId, filter, this.shortRange + 1)) <= this.shortRange) {
      // A short time range (the last hour of a busy mailbox): testing its few rows costs less
      // than going through the mailbox's distinct lists at all.
      const w = this.where(mailboxId, filter, "row");
      const total = await this.count(`SELECT COUNT(*) AS n FROM mailbox_messages ${d.indexedBy("mailbox_messages_newest")} WHERE ${w.sql}`, w.params);
      return { messages: total > filter.offset ? (await this.page(w, filter, "mailbox_messages_newest")).map(toSummary) : [], total };
    }
    const lists = (await this.db.get<{ lists: number; messages: number; known: string | null }>(
      `SELECT COUNT(*) AS lists, COALESCE(SUM(messages), 0) AS messages,
              CASE WHEN COUNT(*) <= ? THEN json_group_array(addrs) END AS known
       FROM ${matchingLists(d, role)}`,
      [this.knownLists, mailboxId, d.needle(needle)],
    ))!;
    const known = lists.known ?? undefined;
    if (Number(lists.messages) === 0) return { messages: [], total: 0 };
    const all = await this.messages(mailboxId);
    const inRange = ranged ? await this.countInRange(mailboxId, filter) : all;
    // Rows walked against seeks into each matching list plus that list's entries in the range.
    const walkIsCheaper = (rowsWalked: number) => rowsWalked <= 2 * lists.lists + (lists.messages * inRange) / Math.max(all, 1);
    const way = (rowsWalked: number): { w: Where; index: string } =>
      walkIsCheaper(rowsWalked)
        ? { w: this.where(mailboxId, filter, "row"), index: "mailbox_messages_newest" }
        : { w: this.where(mailboxId, filter, "lists", known), index: `mailbox_messages_${role}` };

    const alone = !ranged && filter.hasAttachment === undefined && filter.with === undefined && (role === "to" || filter.to === undefined);
    let total = Number(lists.messages);
    if (!alone) {
      const { w, index } = way(inRange);
      total = await this.count(`SELECT COUNT(*) AS n FROM mailbox_messages ${d.indexedBy(index)} WHERE ${w.sql}`, w.params);
    }
    if (total === 0 || filter.offset >= total) return { messages: [], total };
    // Walking finds offset + limit matches after about that many rows times inRange / total.
    const { w, index } = way(((filter.offset + filter.limit) * inRange) / total);
    return { messages: (await this.page(w, filter, index)).map(toSummary), total };
  }

  private page(w: Where, filter: ListFilter, index?: string): Promise<SummaryRow[]> {
    const from = index ? `mailbox_messages ${this.db.dialect.indexedBy(index)}` : "mailbox_messages";
    return this.db.all<SummaryRow>(`SELECT ${SUMMARY} FROM ${from} WHERE ${w.sql} ${NEWEST_FIRST} LIMIT ? OFFSET ?`, [...w.params, filter.limit, filter.offset]);
  }

  private async count(sql: string, params: Param[]): Promise<number> {
    return Number((await this.db.get<{ n: number }>(sql, params))!.n);
  }

  /** The mailbox's messages, kept by triggers (SQLite) or by the delivery (PostgreSQL). */
  private async messages(mailboxId: string): Promise<number> {
    const row = await this.db.get<{ messages: number }>("SELECT messages FROM mailbox_message_counts WHERE mailbox_id = ?", [mailboxId]);
    return Number(row?.messages ?? 0);
  }

  /** The mailbox's messages in the filter's time range (counting stops at `upTo`), from the narrow time index alone. */
  private countInRange(mailboxId: string, filter: Range, upTo = Number.MAX_SAFE_INTEGER): Promise<number> {
    return this.count(
      `SELECT COUNT(*) AS n FROM (SELECT 1 FROM mailbox_messages ${this.db.dialect.indexedBy("mailbox_messages_newest")} WHERE mailbox_id = ? AND received_ms >= ? AND received_ms < ? LIMIT ?) r`,
      [mailboxId, filter.fromMs ?? Number.MIN_SAFE_INTEGER, filter.beforeMs ?? Number.MAX_SAFE_INTEGER, upTo],
    );
  }

  private async total(mailboxId: string, filter: ListFilter, w: Where, returned: number): Promise<number> {
    // A page that is not full, and not past the end, has seen every match.
    if (returned > 0 && returned < filter.limit) return filter.offset + returned;
    const substring = filter.from !== undefined || filter.to !== undefined;
    const unfiltered = !substring && filter.fromMs === undefined && filter.beforeMs === undefined && filter.hasAttachment === undefined && filter.with === undefined;
    if (unfiltered) return this.messages(mailboxId);
    if (!substring && filter.with !== undefined && filter.hasAttachment === undefined) {
      // Only `with` and a time range: counted in the address index alone.
      return this.count("SELECT COUNT(*) AS n FROM mailbox_message_addresses WHERE mailbox_id = ? AND address = ? AND received_ms >= ? AND received_ms < ?",
        [mailboxId, filter.with, filter.fromMs ?? Number.MIN_SAFE_INTEGER, filter.beforeMs ?? Number.MAX_SAFE_INTEGER]);
    }
    return this.count(`SELECT COUNT(*) AS n FROM mailbox_messages WHERE ${w.sql}`, w.params);
  }

  async get(mailboxId: string, uid: number): Promise<MessageRecord | undefined> {
    if (!isUid(uid)) return undefined;
    const row = await this.db.get<SummaryRow & { detail: string }>(
      `SELECT ${SUMMARY}, c.detail FROM mailbox_messages m JOIN message_contents c ON c.id = m.content_id WHERE m.mailbox_id = ? AND m.uid = ?`, [mailboxId, uid]);
    return row && { ...toSummary(row), detail: JSON.parse(row.detail) as MessageDetail };
  }

  async getRaw(mailboxId: string, uid: number): Promise<Buffer | undefined> {
    if (!isUid(uid)) return undefined;
    const row = await this.db.get<{ raw: Uint8Array }>(
      "SELECT c.raw FROM mailbox_messages m JOIN message_contents c ON c.id = m.content_id WHERE m.mailbox_id = ? AND m.uid = ?", [mailboxId, uid]);
    return row && Buffer.from(row.raw.buffer, row.raw.byteOffset, row.raw.byteLength);
  }

  async findByMessageId(mailboxId: string, rfcMessageId: string, range: Range): Promise<LookupResult> {
    const w = this.where(mailboxId, range);
    type Hit = { uid: number; subject: string; rfc_message_id: string; received_ms: number };
    const exact = await this.db.get<Hit>(
      `SELECT uid, subject, rfc_message_id, received_ms FROM mailbox_messages WHERE ${w.sql} AND rfc_message_id = ? ${NEWEST_FIRST} LIMIT 1`, [...w.params, rfcMessageId]);
    if (exact) return { found: found(exact), source: "index", scanned: 1, reachedBackMs: Number(exact.received_ms) };

    // Not under that exact key: the domain part of a Message-ID is case-insensitive and some
    // software rewrites case, so the range is scanned comparing without case (ASCII letters, alike on both stores).
    const lower = this.db.dialect.asciiLower;
    const scanned = await this.db.get<Hit>(
      `SELECT uid, subject, rfc_message_id, received_ms FROM mailbox_messages WHERE ${w.sql} AND ${lower("rfc_message_id")} = ${lower("?")} ${NEWEST_FIRST} LIMIT 1`, [...w.params, rfcMessageId]);
    if (scanned) {
      const n = await this.count(`SELECT COUNT(*) AS n FROM mailbox_messages WHERE ${w.sql} AND (received_ms > ? OR (received_ms = ? AND uid >= ?))`,
        [...w.params, scanned.received_ms, scanned.received_ms, scanned.uid]);
      return { found: found(scanned), source: "scan", scanned: n, reachedBackMs: Number(scanned.received_ms) };
    }
    const all = (await this.db.get<{ n: number; oldest: number | null }>(`SELECT COUNT(*) AS n, MIN(received_ms) AS oldest FROM mailbox_messages WHERE ${w.sql}`, w.params))!;
    return { source: "scan", scanned: Number(all.n), reachedBackMs: all.oldest === null ? undefined : Number(all.oldest) };
  }
}

function found(r: { uid: number; subject: string; rfc_message_id: string }) {
  return { uid: Number(r.uid), subject: r.subject, rfcMessageId: r.rfc_message_id };
}
