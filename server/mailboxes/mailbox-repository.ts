// The storage boundary of mailboxes and groups. They share one address space (an address is
// either a mailbox or a group), so one repository owns both; every method is scoped to a project.
// Written once over Sql (db/sql.ts) for SQLite and PostgreSQL.
import { CapReachedError } from "../db/capped-insert.ts";
import { bool, type Param, type Sql } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";

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
}

export interface NewMailbox {
  projectId: string;
  domainId: string;
  kind: MailboxKind;
  email: string;
  passwordHash: string | null;
  description: string | null;
}

export interface MailboxRepository {
  /**
   * Undefined when the address is taken (by a mailbox or a group of any project). With `cap`,
   * throws CapReachedError when the project already has that many of `m.kind`, checked in the
   * insert's transaction.
   */
  create(m: NewMailbox, cap?: number): Promise<MailboxRecord | undefined>;
  /** Read-only: a cached repository answers with its own frozen list, the same object until something changes. */
  list(projectId: string, kind?: MailboxKind): Promise<readonly MailboxRecord[]>;
  get(projectId: string, id: string, kind: MailboxKind): Promise<MailboxRecord | undefined>;
  findByEmail(projectId: string, email: string, kind: MailboxKind): Promise<MailboxRecord | undefined>;
  /** Only within the project; false when there is no such entry. */
  delete(projectId: string, id: string, kind: MailboxKind): Promise<boolean>;
  setShared(projectId: string, id: string, shared: boolean): Promise<boolean>;
  listMembers(groupId: string): Promise<MailboxRecord[]>;
  /** False when the mailbox is already a member; CapReachedError when the group has `cap` members. */
  addMember(groupId: string, mailboxId: string, cap?: number): Promise<boolean>;
  removeMember(groupId: string, mailboxId: string): Promise<boolean>;
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
}

// Named columns keep the password hash out of every read; members are counted only for groups.
const columns = `m.id, m.project_id, m.domain_id, m.kind, m.email, m.description, m.shared, m.used_bytes, m.created_at,
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
    const row = await this.db.get<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = ? AND email = ? AND kind = ?`, [projectId, email.toLowerCase(), kind]);
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
