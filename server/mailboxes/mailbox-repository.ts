// The storage boundary of mailboxes and groups. They share one address space (an address is
// either a mailbox or a group), so one repository owns both; every method is scoped to a project.
// Written once over Sql (db/sql.ts) for SQLite and PostgreSQL.
import { CapReachedError } from "../db/capped-insert.ts";
import { bool, type Param, type Sql } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";
import { releaseAddresses } from "./released.ts";

/**
 * Notified in every write's transaction (payload: the project id, or empty when unknown), so each
 * instance's CachedMailboxRepository drops its lists on commit; so must every other writer of
 * these tables (inbound mail changing used_bytes).
 */
export const MAILBOXES_CHANNEL = "mailboxes_changed";

export type MailboxKind = "mailbox" | "group";

export interface MailboxRecord {
  id: string;
  projectId: string;
  domainId: string;
  kind: MailboxKind;
  email: string;
  description: string | null;
  shared: boolean;
  usedBytes: number;
  membersCount: number;
  createdAt: string;
  /**
   * When the claim of the mailbox's domain ended (decision O8): the mailbox keeps its stored mail
   * but no longer holds its address (mailboxes/released.ts); null while it holds it.
   */
  releasedAt: string | null;
}

export interface NewMailbox {
  projectId: string;
  domainId: string;
  kind: MailboxKind;
  email: string;
  passwordHash: string | null;
  description: string | null;
}

/**
 * Thrown by create when the claim of the domain is no longer verified at the insert: read inside
 * its transaction, with the claim's row locked, so a claim ending meanwhile (which releases its
 * addresses, released.ts) and a create on it are ordered and no mailbox is left on an ended claim.
 */
export class ClaimNotHeldError extends Error {
  constructor(domainId: string) {
    super(`the claim ${domainId} is not verified`);
  }
}

export interface MailboxRepository {
  /**
   * Undefined when the address is taken (by a mailbox or a group of any project that holds it).
   * With `cap`, throws CapReachedError when the project already has that many of `m.kind`, checked in the
   * insert's transaction; ClaimNotHeldError when the domain's claim is not verified at the insert.
   */
  create(m: NewMailbox, cap?: number): Promise<MailboxRecord | undefined>;
  /** Read-only: a cached repository answers with its own frozen list, the same object until something changes. */
  list(projectId: string, kind?: MailboxKind): Promise<readonly MailboxRecord[]>;
  get(projectId: string, id: string, kind: MailboxKind): Promise<MailboxRecord | undefined>;
  /** The project's entry of that address: the one holding it, else its latest released one. */
  findByEmail(projectId: string, email: string, kind: MailboxKind): Promise<MailboxRecord | undefined>;
  /** Only within the project; false when there is no such entry. */
  delete(projectId: string, id: string, kind: MailboxKind): Promise<boolean>;
  setShared(projectId: string, id: string, shared: boolean): Promise<boolean>;
  listMembers(groupId: string): Promise<MailboxRecord[]>;
  /** False when the mailbox is already a member; CapReachedError when the group has `cap` members. */
  addMember(groupId: string, mailboxId: string, cap?: number): Promise<boolean>;
  removeMember(groupId: string, mailboxId: string): Promise<boolean>;
  /** Releases the addresses of a claim that ends, in the transaction that ends it (released.ts). */
  releaseClaim(tx: Sql, claim: { id: string; projectId: string }, at: string): Promise<void>;
}

interface Row {
  id: string;
  project_id: string;
  domain_id: string;
  kind: MailboxKind;
  email: string;
  description: string | null;
  shared: unknown;
  used_bytes: number;
  members_count: number;
  created_at: string;
  released_at: string | null;
}

// Named columns keep the password hash out of every read; members are counted only for groups.
// A released mailbox shows the address it had (its `email` column holds its id, released.ts).
const columns = `m.id, m.project_id, m.domain_id, m.kind, COALESCE(m.released_email, m.email) AS email, m.description, m.shared, m.used_bytes, m.created_at, m.released_at,
  CASE m.kind WHEN 'group' THEN (SELECT COUNT(*) FROM group_members g WHERE g.group_id = m.id) ELSE 0 END AS members_count`;

const toRecord = (r: Row): MailboxRecord => ({
  id: r.id,
  projectId: r.project_id,
  domainId: r.domain_id,
  kind: r.kind,
  email: r.email,
  description: r.description,
  shared: bool(r.shared),
  usedBytes: Number(r.used_bytes),
  membersCount: Number(r.members_count),
  createdAt: r.created_at,
  releasedAt: r.released_at,
});

/** Mailboxes and groups on either store. */
export class SqlMailboxRepository implements MailboxRepository {
  private readonly db: Sql;
  constructor(db: Sql) {
    this.db = db;
  }

  async create(m: NewMailbox, cap?: number): Promise<MailboxRecord | undefined> {
    const id = newId(m.kind === "group" ? "grp" : "mbx");
    const created = await this.db.transaction(async (tx) => {
      if (cap !== undefined) {
        // Count and insert in one transaction, ordered against every other create of this scope (decision L3).
        await tx.lock(`mailboxes:${m.projectId}:${m.kind}`);
        const { n } = (await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM mailboxes WHERE project_id = ? AND kind = ?", [m.projectId, m.kind]))!;
        if (Number(n) >= cap) throw new CapReachedError(cap);
      }
      // The claim's row locked until commit: a claim ending (released.ts) waits for this insert
      // and then releases it too, or this insert waits for the end and sees it (decision O8).
      const claim = await tx.get<{ status: string }>(`SELECT status FROM mail_domains WHERE id = ? ${tx.dialect.forUpdate}`, [m.domainId]);
      if (claim?.status !== "verified") throw new ClaimNotHeldError(m.domainId);
      // The UNIQUE email constraint decides races between two creates of one address.
      const r = await tx.run(
        `INSERT INTO mailboxes (id, project_id, domain_id, kind, email, password_hash, description, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING`,
        [id, m.projectId, m.domainId, m.kind, m.email, m.passwordHash, m.description, nowIso()],
      );
      if (r.changes) await tx.notify(MAILBOXES_CHANNEL, m.projectId);
      return r.changes > 0;
    });
    return created ? this.get(m.projectId, id, m.kind) : undefined;
  }

  async list(projectId: string, kind?: MailboxKind): Promise<MailboxRecord[]> {
    const rows = kind
      ? await this.db.all<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = ? AND kind = ? ORDER BY email`, [projectId, kind])
      : await this.db.all<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = ? ORDER BY email`, [projectId]);
    return rows.map(toRecord);
  }

  async get(projectId: string, id: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    const row = await this.db.get<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = ? AND id = ? AND kind = ?`, [projectId, id, kind]);
    return row && toRecord(row);
  }

  async findByEmail(projectId: string, email: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    const row = await this.db.get<Row>(
      `SELECT ${columns} FROM mailboxes m WHERE project_id = ? AND COALESCE(released_email, email) = ? AND kind = ?
       ORDER BY CASE WHEN released_at IS NULL THEN 0 ELSE 1 END, released_at DESC LIMIT 1`,
      [projectId, email.toLowerCase(), kind],
    );
    return row && toRecord(row);
  }

  delete(projectId: string, id: string, kind: MailboxKind): Promise<boolean> {
    return this.write(projectId, "DELETE FROM mailboxes WHERE project_id = ? AND id = ? AND kind = ?", [projectId, id, kind]);
  }

  setShared(projectId: string, id: string, shared: boolean): Promise<boolean> {
    return this.write(projectId, "UPDATE mailboxes SET shared = ? WHERE project_id = ? AND id = ? AND kind = 'mailbox'", [shared, projectId, id]);
  }

  async listMembers(groupId: string): Promise<MailboxRecord[]> {
    return (await this.db.all<Row>(`SELECT ${columns} FROM group_members gm JOIN mailboxes m ON m.id = gm.mailbox_id WHERE gm.group_id = ? ORDER BY m.email`, [groupId])).map(toRecord);
  }

  addMember(groupId: string, mailboxId: string, cap?: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (cap !== undefined) {
        await tx.lock(`group_members:${groupId}`);
        const { n } = (await tx.get<{ n: number }>("SELECT COUNT(*) AS n FROM group_members WHERE group_id = ?", [groupId]))!;
        if (Number(n) >= cap) throw new CapReachedError(cap);
      }
      const r = await tx.run("INSERT INTO group_members (group_id, mailbox_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", [groupId, mailboxId, nowIso()]);
      if (r.changes) await tx.notify(MAILBOXES_CHANNEL);
      return r.changes > 0;
    });
  }

  removeMember(groupId: string, mailboxId: string): Promise<boolean> {
    return this.write("", "DELETE FROM group_members WHERE group_id = ? AND mailbox_id = ?", [groupId, mailboxId]);
  }

  /** Every mailbox and group on the claim (mailboxes/released.ts says what and why). */
  async releaseClaim(tx: Sql, claim: { id: string; projectId: string }, at: string): Promise<void> {
    // Every instance's cached mailbox lists of the project drop on commit.
    if (await releaseAddresses(tx, claim.id, at)) await tx.notify(MAILBOXES_CHANNEL, claim.projectId);
  }

  /** One write statement and its notification, committed together. */
  private write(projectId: string, sql: string, params: Param[]): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const r = await tx.run(sql, params);
      if (!r.changes) return false;
      await tx.notify(MAILBOXES_CHANNEL, projectId);
      return true;
    });
  }
}
