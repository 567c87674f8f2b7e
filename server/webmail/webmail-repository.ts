// The storage boundary of webmail login links and sessions. Tokens are stored only as hashes.

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
