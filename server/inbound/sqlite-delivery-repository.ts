// Delivery on the embedded SQLite store. A message is stored in an IMMEDIATE transaction
// committed with synchronous=FULL before the listener answers 250: once the sender has its 250,
// kill -9 loses nothing, and a failure anywhere (a mailbox deleted meanwhile, the disk full)
// leaves nothing half-stored. Group commit: the messages whose DATA ended in the same turn of
// the event loop share one transaction (each in its own savepoint, so one failure fails only
// its own message) and so one fsync, which is most of what a commit costs; while that fsync
// blocks, the next group gathers.
import type { DatabaseSync } from "node:sqlite";
import { transaction } from "../db/database.ts";
import { prepare } from "../db/statements.ts";
import type { DeliveredCopy, DeliveryRepository, Recipient, StoredMessage } from "./delivery-repository.ts";
import { recipientOf, type MailboxRow } from "./recipient-of.ts";

interface Pending {
  message: StoredMessage;
  recipients: string[];
  resolve: (copies: DeliveredCopy[]) => void;
  reject: (error: unknown) => void;
}

interface Target {
  id: string;
  project_id: string;
  email: string;
}

export class SqliteDeliveryRepository implements DeliveryRepository {
  private readonly db: DatabaseSync;
  private readonly onCopy: (copy: DeliveredCopy, message: StoredMessage) => void;
  /** Messages waiting for the group commit scheduled at the end of this turn. */
  private pending: Pending[] = [];

  /** `onCopy` writes inside the transaction what each stored copy causes: its mail.received. */
  constructor(db: DatabaseSync, onCopy: (copy: DeliveredCopy, message: StoredMessage) => void) {
    this.db = db;
    this.onCopy = onCopy;
  }

  lookup(address: string): Recipient {
    const email = address.toLowerCase();
    const row = prepare(this.db,
      "SELECT m.id, m.project_id, m.kind, m.email, d.status FROM mailboxes m JOIN mail_domains d ON d.id = m.domain_id WHERE m.email = ?",
    ).get(email) as MailboxRow | undefined;
    const domain = email.slice(email.lastIndexOf("@") + 1);
    const owned = () => Boolean(prepare(this.db, "SELECT 1 FROM mail_domains WHERE name = ? AND status = 'verified'").get(domain));
    return recipientOf(row, owned);
  }

  store(message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.commitPending());
      this.pending.push({ message, recipients, resolve, reject });
    });
  }

  private commitPending(): void {
    const group = this.pending;
    this.pending = [];
    const outcomes: ({ copies: DeliveredCopy[] } | { error: unknown })[] = [];
    try {
      transaction(this.db, () => {
        for (const p of group) {
          this.db.exec("SAVEPOINT message");
          try {
            outcomes.push({ copies: this.storeCopies(p.message, p.recipients) });
            this.db.exec("RELEASE message");
          } catch (error) {
            this.db.exec("ROLLBACK TO message");
            this.db.exec("RELEASE message");
            outcomes.push({ error });
          }
        }
      });
    } catch (error) {
      // The commit itself failed: nothing of the group is stored.
      for (const p of group) p.reject(error);
      return;
    }
    group.forEach((p, i) => {
      const outcome = outcomes[i];
      if ("error" in outcome) p.reject(outcome.error);
      else p.resolve(outcome.copies);
    });
  }

  private storeCopies(message: StoredMessage, recipients: string[]): DeliveredCopy[] {
    const targets = this.mailboxesReached(recipients);
    if (targets.length === 0) return [];
    const content = prepare(this.db, "INSERT INTO message_contents (raw, size, detail) VALUES (?, ?, ?) RETURNING id").get(
      message.raw,
      message.raw.length,
      JSON.stringify(message.detail),
    ) as { id: number };
    const fromAddrs = addressList(message.from.map((a) => a.email));
    const toAddrs = addressList(message.recipientAddresses);
    const addresses = new Set([...message.from.map((a) => a.email), ...message.recipientAddresses].map((a) => a.toLowerCase()).filter(Boolean));
    const copies: DeliveredCopy[] = [];
    for (const target of targets) {
      const { uid } = prepare(this.db, "SELECT COALESCE(MAX(uid), 0) + 1 AS uid FROM mailbox_messages WHERE mailbox_id = ?").get(target.id) as { uid: number };
      prepare(this.db,
        `INSERT INTO mailbox_messages (mailbox_id, uid, content_id, received_ms, subject, from_json, from_addrs, to_addrs, has_attachment, rfc_message_id, preview, quarantined)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(target.id, uid, content.id, message.receivedMs, message.subject, JSON.stringify(message.from), fromAddrs, toAddrs,
        message.hasAttachment ? 1 : 0, message.rfcMessageId, message.preview, message.quarantined ? 1 : 0);
      for (const address of addresses) {
        prepare(this.db, "INSERT OR IGNORE INTO mailbox_message_addresses (mailbox_id, address, received_ms, uid) VALUES (?, ?, ?, ?)").run(target.id, address, message.receivedMs, uid);
      }
      prepare(this.db, "UPDATE mailboxes SET used_bytes = used_bytes + ? WHERE id = ?").run(message.raw.length, target.id);
      const copy = { projectId: target.project_id, mailboxId: target.id, mailbox: target.email, uid };
      this.onCopy(copy, message);
      copies.push(copy);
    }
    return copies;
  }

  /** Distinct mailboxes, resolved inside the transaction: membership is what it is at commit. */
  private mailboxesReached(recipients: string[]): Target[] {
    const reached = new Map<string, Target>();
    for (const rcpt of recipients) {
      const rows = prepare(this.db,
        `SELECT id, project_id, email FROM mailboxes WHERE email = ? AND kind = 'mailbox'
         UNION ALL
         SELECT m.id, m.project_id, m.email FROM mailboxes g JOIN group_members gm ON gm.group_id = g.id JOIN mailboxes m ON m.id = gm.mailbox_id
         WHERE g.email = ? AND g.kind = 'group'`,
      ).all(rcpt, rcpt) as unknown as Target[];
      for (const row of rows) reached.set(row.id, row);
    }
    return [...reached.values()];
  }
}

/** " a@x b@y ": exact addresses match ` a@x `, substrings match anywhere. */
export function addressList(addresses: string[]): string {
  const unique = [...new Set(addresses.map((a) => a.toLowerCase()).filter(Boolean))];
  return unique.length ? ` ${unique.join(" ")} ` : " ";
}
