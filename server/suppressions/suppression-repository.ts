// The storage boundary of the suppression list users see and change (issue 41 item 1, decision
// SU1), and its one implementation on the store (db/sql.ts). The rows are the ones the send path
// checks and the bounce, complaint and unsubscribe paths write (mail-sending/suppression-rules.ts):
// one table, so a removed suppression lets the very next send go out.
import type { Sql, Store } from "../db/sql.ts";
import type { Clock } from "../jobs/clock.ts";
import type { MailStream } from "../mail-sending/message-repository.ts";
import { suppress, type SuppressionKind, type SuppressionReason } from "../mail-sending/suppression-rules.ts";

/** `all`: both streams, the whole project (kind 'hard'); `marketing`: one scope owner's marketing. */
export type SuppressionStream = "all" | "marketing";

export interface SuppressionRecord {
  id: number;
  projectId: string;
  address: string;
  reason: SuppressionReason;
  stream: SuppressionStream;
  scope: string;
  messageId: string | null;
  detail: string | null;
  /** Epoch ms. */
  createdAt: number;
}

export interface SuppressionFilter {
  limit: number;
  /** Only ids below this one (the next page's cursor). */
  before?: number;
  address?: string;
  reason?: SuppressionReason;
  /** What a message of this stream would be blocked by. */
  stream?: MailStream;
  /** What a message of this scope owner would be blocked by (project-wide rows included). */
  scope?: string;
  /** Epoch ms; only rows created strictly later. */
  since?: number;
}

export interface SuppressionRepository {
  /** Newest first. */
  list(projectId: string, filter: SuppressionFilter): Promise<SuppressionRecord[]>;
  /**
   * A manual block; when the same block (address, stream, scope) exists already, that one is
   * answered unchanged. The caller refuses test recipients first (decision SU2).
   */
  add(projectId: string, block: { address: string; stream: SuppressionStream; scope: string }): Promise<SuppressionRecord>;
  /** False when the project has no suppression with that id (another project's included). */
  remove(projectId: string, id: number): Promise<boolean>;
}

interface Row {
  id: number | string;
  project_id: string;
  address: string;
  kind: SuppressionKind;
  scope: string;
  reason: SuppressionReason;
  message_id: string | null;
  detail: string | null;
  created_at: number | string;
}

const COLUMNS = "id, project_id, address, kind, scope, reason, message_id, detail, created_at";

const toRecord = (r: Row): SuppressionRecord => ({
  id: Number(r.id), projectId: r.project_id, address: r.address, reason: r.reason, stream: r.kind === "hard" ? "all" : "marketing",
  scope: r.scope, messageId: r.message_id, detail: r.detail, createdAt: Number(r.created_at),
});

/** The WHERE clause of a filter, each condition the same rule the send path's check applies. */
function where(projectId: string, f: SuppressionFilter): { sql: string; params: (string | number)[] } {
  const conds = ["project_id = ?"];
  const params: (string | number)[] = [projectId];
  const add = (cond: string, ...values: (string | number)[]) => (conds.push(cond), params.push(...values));
  if (f.before !== undefined) add("id < ?", f.before);
  if (f.address !== undefined) add("address = ?", f.address.toLowerCase());
  if (f.reason !== undefined) add("reason = ?", f.reason);
  // The transactional stream is blocked by hard rows only; marketing by every row.
  if (f.stream === "transactional") add("kind = 'hard'");
  if (f.scope !== undefined) add("scope IN ('', ?)", f.scope);
  if (f.since !== undefined) add("created_at > ?", f.since);
  return { sql: conds.join(" AND "), params };
}

export class SqlSuppressionRepository implements SuppressionRepository {
  private readonly store: Store;
  private readonly clock: Clock;
  constructor(store: Store, clock: Clock) {
    this.store = store;
    this.clock = clock;
  }

  async list(projectId: string, filter: SuppressionFilter): Promise<SuppressionRecord[]> {
    const w = where(projectId, filter);
    const rows = await this.store.all<Row>(`SELECT ${COLUMNS} FROM suppressions WHERE ${w.sql} ORDER BY id DESC LIMIT ?`, [...w.params, filter.limit]);
    return rows.map(toRecord);
  }

  add(projectId: string, block: { address: string; stream: SuppressionStream; scope: string }): Promise<SuppressionRecord> {
    const kind: SuppressionKind = block.stream === "all" ? "hard" : "marketing";
    const scope = kind === "hard" ? "" : block.scope;
    return this.store.transaction(async (tx) => {
      await suppress(tx, { projectId, address: block.address, kind, scope, reason: "manual", messageId: null, at: this.clock.now() });
      return toRecord((await this.find(tx, projectId, block.address, kind, scope))!);
    });
  }

  async remove(projectId: string, id: number): Promise<boolean> {
    // An id that is no BIGINT (1e30, a fraction) names no suppression.
    if (!Number.isSafeInteger(id)) return false;
    return (await this.store.run("DELETE FROM suppressions WHERE project_id = ? AND id = ?", [projectId, id])).changes > 0;
  }

  private find(tx: Sql, projectId: string, address: string, kind: SuppressionKind, scope: string): Promise<Row | undefined> {
    return tx.get<Row>(`SELECT ${COLUMNS} FROM suppressions WHERE project_id = ? AND address = ? AND kind = ? AND scope = ?`, [projectId, address.toLowerCase(), kind, scope]);
  }
}
