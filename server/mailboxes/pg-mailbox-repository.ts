// Mailboxes and groups on PostgreSQL (decision P1). Every write notifies MAILBOXES_CHANNEL in its
// transaction, so each instance's CachedMailboxRepository drops its lists on commit (P3); so must
// every other writer of these tables (inbound mail changing used_bytes).
import { insertWithinCap } from "../db/postgres/capped-insert.ts";
import { notify, type Pg } from "../db/postgres/pg.ts";
import { newId, nowIso } from "../ids.ts";
import type { MailboxKind, MailboxRecord, MailboxRepository, NewMailbox } from "./mailbox-repository.ts";

/** NOTIFY channel of mailbox changes (payload: the project id, or empty when unknown). */
export const MAILBOXES_CHANNEL = "mailboxes_changed";

interface Row {
  id: string;
  project_id: string;
  domain_id: string;
  kind: MailboxKind;
  email: string;
  description: string | null;
  shared: boolean;
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
  shared: r.shared,
  usedBytes: r.used_bytes,
  membersCount: r.members_count,
  createdAt: r.created_at,
});

export class PgMailboxRepository implements MailboxRepository {
  private readonly db: Pg;
  constructor(db: Pg) {
    this.db = db;
  }

  async create(m: NewMailbox, cap?: number): Promise<MailboxRecord | undefined> {
    const id = newId(m.kind === "group" ? "grp" : "mbx");
    const created = await insertWithinCap(this.db, `mailboxes:${m.projectId}:${m.kind}`, cap,
      async (c) => (await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM mailboxes WHERE project_id = $1 AND kind = $2", [m.projectId, m.kind])).rows[0].n,
      async (c) => {
        // The UNIQUE email constraint decides races between two creates of one address.
        const r = await c.query(
          `INSERT INTO mailboxes (id, project_id, domain_id, kind, email, password_hash, description, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (email) DO NOTHING`,
          [id, m.projectId, m.domainId, m.kind, m.email, m.passwordHash, m.description, nowIso()],
        );
        if (r.rowCount) await notify(c, MAILBOXES_CHANNEL, m.projectId);
        return (r.rowCount ?? 0) > 0;
      },
    );
    return created ? this.get(m.projectId, id, m.kind) : undefined;
  }

  async list(projectId: string, kind?: MailboxKind): Promise<MailboxRecord[]> {
    const found = kind
      ? await this.db.query<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = $1 AND kind = $2 ORDER BY email`, [projectId, kind])
      : await this.db.query<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = $1 ORDER BY email`, [projectId]);
    return found.map(toRecord);
  }

  async get(projectId: string, id: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = $1 AND id = $2 AND kind = $3`, [projectId, id, kind]);
    return row && toRecord(row);
  }

  async findByEmail(projectId: string, email: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    const [row] = await this.db.query<Row>(`SELECT ${columns} FROM mailboxes m WHERE project_id = $1 AND email = $2 AND kind = $3`, [projectId, email.toLowerCase(), kind]);
    return row && toRecord(row);
  }

  delete(projectId: string, id: string, kind: MailboxKind): Promise<boolean> {
    return this.write(projectId, "DELETE FROM mailboxes WHERE project_id = $1 AND id = $2 AND kind = $3", [projectId, id, kind]);
  }

  setShared(projectId: string, id: string, shared: boolean): Promise<boolean> {
    return this.write(projectId, "UPDATE mailboxes SET shared = $1 WHERE project_id = $2 AND id = $3 AND kind = 'mailbox'", [shared, projectId, id]);
  }

  async listMembers(groupId: string): Promise<MailboxRecord[]> {
    return (await this.db.query<Row>(`SELECT ${columns} FROM group_members gm JOIN mailboxes m ON m.id = gm.mailbox_id WHERE gm.group_id = $1 ORDER BY m.email`, [groupId])).map(toRecord);
  }

  addMember(groupId: string, mailboxId: string, cap?: number): Promise<boolean> {
    return insertWithinCap(this.db, `group_members:${groupId}`, cap,
      async (c) => (await c.query<{ n: number }>("SELECT COUNT(*) AS n FROM group_members WHERE group_id = $1", [groupId])).rows[0].n,
      async (c) => {
        const r = await c.query("INSERT INTO group_members (group_id, mailbox_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [groupId, mailboxId, nowIso()]);
        if (r.rowCount) await notify(c, MAILBOXES_CHANNEL);
        return (r.rowCount ?? 0) > 0;
      },
    );
  }

  removeMember(groupId: string, mailboxId: string): Promise<boolean> {
    return this.write("", "DELETE FROM group_members WHERE group_id = $1 AND mailbox_id = $2", [groupId, mailboxId]);
  }

  /** One write statement and its notification, committed together. */
  private write(projectId: string, sql: string, params: unknown[]): Promise<boolean> {
    return this.db.tx(async (c) => {
      const r = await c.query(sql, params);
      if (!r.rowCount) return false;
      await notify(c, MAILBOXES_CHANNEL, projectId);
      return true;
    });
  }
}
