// Delivery on PostgreSQL (decision P1): sqlite-delivery-repository.ts's transaction for many
// instances. One pool transaction per message: the bytes, one copy per distinct mailbox reached,
// each mailbox's usedBytes, count and next uid, and each copy's mail.received (written by
// `onCopy` on the same client). store() resolves after COMMIT, which waits for the WAL flush
// (synchronous_commit on), so the listener's 250 follows a durable commit. SQLite's writer thread
// and group commit are not needed: the commit's wait is a socket's, not the event loop's, and
// PostgreSQL groups concurrent flushes itself. Two instances storing into one mailbox at once are
// ordered by the mailbox's counter row (locked in mailbox id order, so never a deadlock).
import { notify, rows, type Pg, type Queryable } from "../db/postgres/pg.ts";
import { MAILBOXES_CHANNEL } from "../mailboxes/pg-mailbox-repository.ts";
import type { DeliveredCopy, DeliveryRepository, Recipient, StoredMessage } from "./delivery-repository.ts";
import { recipientOf, type MailboxRow } from "./recipient-of.ts";
import { addressList } from "./sqlite-delivery-repository.ts";

interface Target {
  id: string;
  project_id: string;
  email: string;
}

/** What each stored copy causes, written on the delivery's transaction (its mail.received). */
export type PgOnCopy = (c: Queryable, copy: DeliveredCopy, message: StoredMessage) => Promise<void>;

export class PgDeliveryRepository implements DeliveryRepository {
  private readonly db: Pg;
  private readonly onCopy: PgOnCopy;

  constructor(db: Pg, onCopy: PgOnCopy) {
    this.db = db;
    this.onCopy = onCopy;
  }

  async lookup(address: string): Promise<Recipient> {
    const email = address.toLowerCase();
    const [row] = await this.db.query<MailboxRow>(
      "SELECT m.id, m.project_id, m.kind, m.email, d.status FROM mailboxes m JOIN mail_domains d ON d.id = m.domain_id WHERE m.email = $1", [email]);
    if (row?.status === "verified") return recipientOf(row, () => true);
    const domain = email.slice(email.lastIndexOf("@") + 1);
    const owned = await this.db.query("SELECT 1 FROM mail_domains WHERE name = $1 AND status = 'verified'", [domain]);
    return recipientOf(row, () => owned.length > 0);
  }

  store(message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]> {
    return this.db.tx((c) => this.storeCopies(c, message, recipients));
  }

  private async storeCopies(c: Queryable, message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]> {
    const targets = await this.mailboxesReached(c, recipients);
    if (targets.length === 0) return [];
    // A structured clone (the SQLite writer thread's path) makes a Uint8Array of it; pg wants a Buffer.
    const raw = Buffer.isBuffer(message.raw) ? message.raw : Buffer.from(message.raw);
    const [content] = await rows<{ id: number }>(c, "INSERT INTO message_contents (raw, size, detail) VALUES ($1, $2, $3) RETURNING id", [raw, raw.length, JSON.stringify(message.detail)]);
    const fromAddrs = addressList(message.from.map((a) => a.email));
    const toAddrs = addressList(message.recipientAddresses);
    const addresses = [...new Set([...message.from.map((a) => a.email), ...message.recipientAddresses].map((a) => a.toLowerCase()).filter(Boolean))];
    const copies: DeliveredCopy[] = [];
    for (const target of targets) {
      const [{ last_uid: uid }] = await rows<{ last_uid: number }>(c,
        `INSERT INTO mailbox_message_counts (mailbox_id, messages, last_uid) VALUES ($1, 1, 1)
         ON CONFLICT (mailbox_id) DO UPDATE SET messages = mailbox_message_counts.messages + 1, last_uid = mailbox_message_counts.last_uid + 1
         RETURNING last_uid`, [target.id]);
      await c.query(
        `INSERT INTO mailbox_messages (mailbox_id, uid, content_id, received_ms, subject, from_json, from_addrs, to_addrs, has_attachment, rfc_message_id, preview, quarantined)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [target.id, uid, content.id, message.receivedMs, message.subject, JSON.stringify(message.from), fromAddrs, toAddrs, message.hasAttachment, message.rfcMessageId, message.preview, message.quarantined],
      );
      if (addresses.length) {
        await c.query(
          "INSERT INTO mailbox_message_addresses (mailbox_id, address, received_ms, uid) SELECT $1, a, $2, $3 FROM unnest($4::text[]) AS a ON CONFLICT DO NOTHING",
          [target.id, message.receivedMs, uid, addresses],
        );
      }
      await c.query("UPDATE mailboxes SET used_bytes = used_bytes + $1 WHERE id = $2", [raw.length, target.id]);
      const copy = { projectId: target.project_id, mailboxId: target.id, mailbox: target.email, uid };
      await this.onCopy(c, copy, message);
      copies.push(copy);
    }
    // usedBytes changed: every instance's cached mailbox lists of these projects drop on commit.
    for (const projectId of new Set(targets.map((t) => t.project_id))) await notify(c, MAILBOXES_CHANNEL, projectId);
    return copies;
  }

  /** Distinct mailboxes in id order, resolved inside the transaction: membership is what it is at commit. */
  private async mailboxesReached(c: Queryable, recipients: string[]): Promise<Target[]> {
    return rows<Target>(c,
      `SELECT DISTINCT id, project_id, email FROM (
         SELECT id, project_id, email FROM mailboxes WHERE email = ANY($1) AND kind = 'mailbox'
         UNION ALL
         SELECT m.id, m.project_id, m.email FROM mailboxes g JOIN group_members gm ON gm.group_id = g.id JOIN mailboxes m ON m.id = gm.mailbox_id
         WHERE g.email = ANY($1) AND g.kind = 'group'
       ) reached ORDER BY id`,
      [recipients],
    );
  }
}
