import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import type { WebmailRepository } from "./webmail-repository.ts";

export class SqliteWebmailRepository implements WebmailRepository {
  private readonly db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.db = db;
  }

  async createLink(tokenHash: string, mailboxId: string, expiresAtMs: number): Promise<void> {
    prepare(this.db, "INSERT INTO webmail_links (token_hash, mailbox_id, expires_at) VALUES (?, ?, ?)").run(tokenHash, mailboxId, expiresAtMs);
  }

  async redeemLink(tokenHash: string, nowMs: number): Promise<string | undefined> {
    // UPDATE ... RETURNING is one atomic step in SQLite, across processes too.
    const row = prepare(this.db, "UPDATE webmail_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING mailbox_id")
      .get(nowMs, tokenHash, nowMs) as { mailbox_id: string } | undefined;
    return row?.mailbox_id;
  }

  async createSession(idHash: string, mailboxId: string, expiresAtMs: number): Promise<void> {
    prepare(this.db, "INSERT INTO webmail_sessions (id_hash, mailbox_id, expires_at) VALUES (?, ?, ?)").run(idHash, mailboxId, expiresAtMs);
  }

  async getSession(idHash: string, nowMs: number): Promise<{ mailboxId: string; email: string } | undefined> {
    const row = prepare(this.db, 
        `SELECT s.mailbox_id, m.email FROM webmail_sessions s JOIN mailboxes m ON m.id = s.mailbox_id
         WHERE s.id_hash = ? AND s.expires_at > ?`,
      )
      .get(idHash, nowMs) as { mailbox_id: string; email: string } | undefined;
    return row && { mailboxId: row.mailbox_id, email: row.email };
  }

  async deleteSession(idHash: string): Promise<void> {
    prepare(this.db, "DELETE FROM webmail_sessions WHERE id_hash = ?").run(idHash);
  }
}
