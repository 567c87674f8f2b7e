// Webmail links and sessions on PostgreSQL (decision P1). A link is redeemed by one UPDATE ...
// WHERE used_at IS NULL RETURNING: the row lock makes a second redemption, on this instance or
// another, wait and then find the link used, so exactly one signs in (P4).
import type { Pg } from "../db/postgres/pg.ts";
import type { WebmailRepository } from "./webmail-repository.ts";

export class PgWebmailRepository implements WebmailRepository {
  private readonly db: Pg;
  constructor(db: Pg) {
    this.db = db;
  }

  async createLink(tokenHash: string, mailboxId: string, expiresAtMs: number): Promise<void> {
    await this.db.query("INSERT INTO webmail_links (token_hash, mailbox_id, expires_at) VALUES ($1, $2, $3)", [tokenHash, mailboxId, expiresAtMs]);
  }

  async redeemLink(tokenHash: string, nowMs: number): Promise<string | undefined> {
    const [row] = await this.db.query<{ mailbox_id: string }>(
      "UPDATE webmail_links SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING mailbox_id",
      [nowMs, tokenHash],
    );
    return row?.mailbox_id;
  }

  async createSession(idHash: string, mailboxId: string, expiresAtMs: number): Promise<void> {
    await this.db.query("INSERT INTO webmail_sessions (id_hash, mailbox_id, expires_at) VALUES ($1, $2, $3)", [idHash, mailboxId, expiresAtMs]);
  }

  async getSession(idHash: string, nowMs: number): Promise<{ mailboxId: string; email: string } | undefined> {
    const [row] = await this.db.query<{ mailbox_id: string; email: string }>(
      `SELECT s.mailbox_id, m.email FROM webmail_sessions s JOIN mailboxes m ON m.id = s.mailbox_id
       WHERE s.id_hash = $1 AND s.expires_at > $2`,
      [idHash, nowMs],
    );
    return row && { mailboxId: row.mailbox_id, email: row.email };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.query("DELETE FROM webmail_sessions WHERE id_hash = $1", [idHash]);
  }
}
