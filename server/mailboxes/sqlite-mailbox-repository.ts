import type { DatabaseSync } from "node:sqlite";
import { insertWithinCapSync as insertWithinCap } from "../db/capped-insert.ts";
import { prepare } from "../db/statements.ts";
import { newId, nowIso } from "../ids.ts";
import type { MailboxKind, MailboxRecord, MailboxRepository, NewMailbox } from "./mailbox-repository.ts";

interface Row {
  id: string;
  project_id: string;
  domain_id: string;
  kind: MailboxKind;
  email: string;
  description: string | null;
  shared: number;
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
  shared: r.shared === 1,
  usedBytes: r.used_bytes,
  membersCount: r.members_count,
  createdAt: r.created_at,
});

export class SqliteMailboxRepository implements MailboxRepository {
  private readonly db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.db = db;
  }

  async create(m: NewMailbox, cap?: number): Promise<MailboxRecord | undefined> {
    const id = newId(m.kind === "group" ? "grp" : "mbx");
    const count = () =>
      (prepare(this.db, "SELECT COUNT(*) AS n FROM mailboxes WHERE project_id = ? AND kind = ?").get(m.projectId, m.kind) as { n: number }).n;
    // The UNIQUE email constraint decides races between two creates of one address.
    const r = insertWithinCap(this.db, cap, count, () =>
      prepare(this.db,
        `INSERT INTO mailboxes (id, project_id, domain_id, kind, email, password_hash, description, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (email) DO NOTHING`,
      ).run(id, m.projectId, m.domainId, m.kind, m.email, m.passwordHash, m.description, nowIso()),
    );
    if (Number(r.changes) === 0) return undefined;
    return this.get(m.projectId, id, m.kind);
  }

  async list(projectId: string, kind?: MailboxKind): Promise<MailboxRecord[]> {
    const rows = kind
      ? prepare(this.db, `SELECT ${columns} FROM mailboxes m WHERE project_id = ? AND kind = ? ORDER BY email`).all(projectId, kind)
      : prepare(this.db, `SELECT ${columns} FROM mailboxes m WHERE project_id = ? ORDER BY email`).all(projectId);
    return (rows as unknown as Row[]).map(toRecord);
  }

  async get(projectId: string, id: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    const row = prepare(this.db, `SELECT ${columns} FROM mailboxes m WHERE project_id = ? AND id = ? AND kind = ?`).get(projectId, id, kind);
    return row ? toRecord(row as unknown as Row) : undefined;
  }

  async findByEmail(projectId: string, email: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    const row = prepare(this.db, `SELECT ${columns} FROM mailboxes m WHERE project_id = ? AND email = ? AND kind = ?`)
      .get(projectId, email.toLowerCase(), kind);
    return row ? toRecord(row as unknown as Row) : undefined;
  }

  async delete(projectId: string, id: string, kind: MailboxKind): Promise<boolean> {
    const r = prepare(this.db, "DELETE FROM mailboxes WHERE project_id = ? AND id = ? AND kind = ?").run(projectId, id, kind);
    return Number(r.changes) > 0;
  }

  async setShared(projectId: string, id: string, shared: boolean): Promise<boolean> {
    const r = prepare(this.db, "UPDATE mailboxes SET shared = ? WHERE project_id = ? AND id = ? AND kind = 'mailbox'")
      .run(shared ? 1 : 0, projectId, id);
    return Number(r.changes) > 0;
  }

  async listMembers(groupId: string): Promise<MailboxRecord[]> {
    const rows = prepare(this.db, `SELECT ${columns} FROM group_members gm JOIN mailboxes m ON m.id = gm.mailbox_id WHERE gm.group_id = ? ORDER BY m.email`)
      .all(groupId);
    return (rows as unknown as Row[]).map(toRecord);
  }

  async addMember(groupId: string, mailboxId: string, cap?: number): Promise<boolean> {
    const count = () => (prepare(this.db, "SELECT COUNT(*) AS n FROM group_members WHERE group_id = ?").get(groupId) as { n: number }).n;
    const r = insertWithinCap(this.db, cap, count, () =>
      prepare(this.db, "INSERT INTO group_members (group_id, mailbox_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING").run(groupId, mailboxId, nowIso()),
    );
    return Number(r.changes) > 0;
  }

  async removeMember(groupId: string, mailboxId: string): Promise<boolean> {
    const r = prepare(this.db, "DELETE FROM group_members WHERE group_id = ? AND mailbox_id = ?").run(groupId, mailboxId);
    return Number(r.changes) > 0;
  }
}
