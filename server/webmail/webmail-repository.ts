// The storage boundary of webmail login links and sessions, and its one implementation over the
// store (db/sql.ts). Tokens are stored only as hashes.
import type { Sql } from "../db/sql.ts";

/** What a link signs into: the mailbox, and the origins that may frame its session (decision M11). */
export interface LinkGrant {
  mailboxId: string;
  /** Serialized origins; empty: no site may frame the session. */
  frameAncestors: string[];
}

export interface WebmailSession extends LinkGrant {
  email: string;
}

export interface WebmailRepository {
  createLink(tokenHash: string, mailboxId: string, expiresAtMs: number, frameAncestors?: string[]): Promise<void>;
  /**
   * Marks the link used if it is unused and unexpired, in one statement, and returns what it
   * grants; of two concurrent redemptions exactly one gets it.
   */
  redeemLink(tokenHash: string, nowMs: number): Promise<LinkGrant | undefined>;
  createSession(idHash: string, grant: LinkGrant, expiresAtMs: number): Promise<void>;
  /** The signed-in mailbox's id and address, and the origins that may frame its pages. */
  getSession(idHash: string, nowMs: number): Promise<WebmailSession | undefined>;
  deleteSession(idHash: string): Promise<void>;
}

/** Webmail links and sessions on either store. */
export class SqlWebmailRepository implements WebmailRepository {
  private readonly db: Sql;
  constructor(db: Sql) {
    this.db = db;
  }

  async createLink(tokenHash: string, mailboxId: string, expiresAtMs: number, frameAncestors: string[] = []): Promise<void> {
    await this.db.run("INSERT INTO webmail_links (token_hash, mailbox_id, expires_at, frame_ancestors) VALUES (?, ?, ?, ?)", [
      tokenHash, mailboxId, expiresAtMs, stored(frameAncestors),
    ]);
  }

  async redeemLink(tokenHash: string, nowMs: number): Promise<LinkGrant | undefined> {
    // One UPDATE ... WHERE used_at IS NULL RETURNING: SQLite's single writer, or PostgreSQL's row
    // lock (a second redemption waits, then finds the link used), lets exactly one sign in (P4).
    const row = await this.db.get<{ mailbox_id: string; frame_ancestors: string | null }>(
      // A released mailbox (decision O8) signs nobody in, whatever link was made before.
      `UPDATE webmail_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
         AND mailbox_id IN (SELECT id FROM mailboxes WHERE released_at IS NULL) RETURNING mailbox_id, frame_ancestors`,
      [nowMs, tokenHash, nowMs],
    );
    return row && { mailboxId: row.mailbox_id, frameAncestors: read(row.frame_ancestors) };
  }

  async createSession(idHash: string, grant: LinkGrant, expiresAtMs: number): Promise<void> {
    await this.db.run("INSERT INTO webmail_sessions (id_hash, mailbox_id, expires_at, frame_ancestors) VALUES (?, ?, ?, ?)", [
      idHash, grant.mailboxId, expiresAtMs, stored(grant.frameAncestors),
    ]);
  }

  async getSession(idHash: string, nowMs: number): Promise<WebmailSession | undefined> {
    const row = await this.db.get<{ mailbox_id: string; email: string; frame_ancestors: string | null }>(
      `SELECT s.mailbox_id, m.email, s.frame_ancestors FROM webmail_sessions s JOIN mailboxes m ON m.id = s.mailbox_id
       WHERE s.id_hash = ? AND s.expires_at > ? AND m.released_at IS NULL`,
      [idHash, nowMs],
    );
    return row && { mailboxId: row.mailbox_id, email: row.email, frameAncestors: read(row.frame_ancestors) };
  }

  async deleteSession(idHash: string): Promise<void> {
    await this.db.run("DELETE FROM webmail_sessions WHERE id_hash = ?", [idHash]);
  }
}

const stored = (origins: string[]): string | null => (origins.length ? JSON.stringify(origins) : null);
const read = (column: string | null): string[] => (column ? (JSON.parse(column) as string[]) : []);
