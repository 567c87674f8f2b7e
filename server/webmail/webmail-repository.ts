// The storage boundary of webmail login links and sessions, and its one implementation over the
// store (db/sql.ts). Tokens are stored only as hashes.
import type { Sql } from "../db/sql.ts";

export interface WebmailRepository {
  createLink(tokenHash: string, mailboxId: string, expiresAtMs: number): Promise<void>;
  /**
   * Marks the link used if it is unused and unexpired, in one statement, and returns its
   * mailbox; of two concurrent redemptions exactly one gets the mailbox.
   */
  redeemLink(tokenHash: string, nowMs: number): Promise<string | undefined>;
  createSession(idHash: string, mailboxId: string, expiresAtMs: number): Promise<void>;
  /** The signed-in mailbox's id and address. */
  getSession(idHash: string, nowMs: number): Promise<{ mailboxId: string; email: string } | undefined>;
  deleteSession(idHash: string): Promise<void>;
}

/** Webmail links and sessions on either store. */
export class SqlWebmailRepository implements WebmailRepository {
  private readonly db: Sql;
  constructor(db: Sql) {
    this.db = db;
  }

  async createLink(tokenHash: string, mailboxId: string, expiresAtMs: number): Promise<void> {
    await this.db.run("INSERT INTO webmail_links (token_hash, mailbox_id, expires_at) VALUES (?, ?, ?)", [tokenHash, mailboxId, expiresAtMs]);
  }

  async redeemLink(tokenHash: string, nowMs: number): Promise<string | undefined> {
    // One UPDATE ... WHERE used_at IS NULL RETURNING: SQLite's single writer, or PostgreSQL's row
    // lock (a second redemption waits, then finds the link used), lets exactly one sign in (P4).
    const row = await this.db.get<{ mailbox_id: string }>(
      // A released mailbox (decision O8) signs nobody in, whatever link was made before.
      `UPDATE webmail_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
         AND mailbox_id IN (SELECT id FROM mailboxes WHERE released_at IS NULL) RETURNING mailbox_id`,
      [nowMs, tokenHash, nowMs],
    );
    return row?.mailbox_id;
  }

  async createSession(idHash: string, mailboxId: string, expiresAtMs: number): Promise<void> {
    await this.db.run("INSERT INTO webmail_sessions (id_hash, mailbox_id, expires_at) VALUES (?, ?, ?)", [idHash, mailboxId, expiresAtMs]);
  }

  async getSession(idHash: string, nowMs: number): Promise<{ mailboxId: string; email: string } | undefined> {
    const row = await this.db.get<{ mailbox_id: string; email: string }>(
      `SELECT s.mailbox_id, m.email FROM webmail_sessions s JOIN mailboxes m ON m.id = s.mailbox_id
       WHERE s.id_hash = ? AND s.expires_at > ? AND m.released_at IS NULL`,
      [idHash, nowMs],
    );
    return row && { mailboxId: row.mailbox_id, email: row.email };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.run("DELETE FROM webmail_sessions WHERE id_hash = ?", [idHash]);
  }
}
