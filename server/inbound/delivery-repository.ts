// The storage boundary of the listener: who an address is, and storing an accepted message into
// every mailbox it reaches in one transaction, with each copy's `mail.received` event. Written once
// over Sql (db/sql.ts) for SQLite and PostgreSQL.
//
// Durability: store() resolves after COMMIT, which waits for the disk (SQLite synchronous=FULL,
// PostgreSQL synchronous_commit on), so the listener's 250 follows a durable commit: once the
// sender has its 250, kill -9 loses nothing, and a failure anywhere (a mailbox deleted
// meanwhile, the disk full) leaves nothing half-stored. storeAll() stores several messages in one
// transaction, each in its own savepoint (one failure fails only its own message), so they share
// one commit and one fsync: SQLite's writer thread (delivery-writer.ts) groups the messages whose
// DATA ended in the same turn that way. PostgreSQL groups concurrent flushes itself and stores one
// message per transaction.
//
// Two transactions storing into one mailbox at once (two instances on PostgreSQL) are ordered by
// the mailbox's row, locked first (in mailbox id order, so never a deadlock) by its usedBytes
// update; the next uid is read after that lock.
import type { Backend } from "../db/backend.ts";
import type { Sql } from "../db/sql.ts";
import { MAILBOXES_CHANNEL } from "../mailboxes/mailbox-repository.ts";
import { receivedData } from "./received-event.ts";
import { recipientOf, type MailboxRow, type Recipient } from "./recipient-of.ts";
import type { DeliveredCopy, StoredMessage } from "./stored-message.ts";

export type { Recipient } from "./recipient-of.ts";
export type { Address, DeliveredCopy, MessageDetail, StoredMessage } from "./stored-message.ts";

export interface DeliveryRepository {
  lookup(address: string): Promise<Recipient>;
  /**
   * One transaction: the bytes, one copy per distinct mailbox the recipients reach (a group
   * reaches its members), each mailbox's usedBytes, and each copy's `mail.received` event. Resolves once committed durably;
   * no copies when no recipient reaches a mailbox any more.
   */
  store(message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]>;
  close?(): Promise<void>;
}

/** One message of storeAll: its copies, or why it failed (then nothing of it is stored). */
export type StoreOutcome = { copies: DeliveredCopy[] } | { error: unknown };

export interface DeliveryOptions {
  /**
   * The schema keeps no trigger counting each mailbox's messages (PostgreSQL's keeps
   * mailbox_message_counts in the delivery transaction, with the last uid; SQLite's triggers
   * count on insert and delete, mailbox-reading/migrations.ts): the delivery counts.
   */
  countsMessages: boolean;
}

interface Target {
  id: string;
  project_id: string;
  email: string;
}

/** " a@x b@y ": exact addresses match ` a@x `, substrings match anywhere. */
export function addressList(addresses: string[]): string {
  const unique = [...new Set(addresses.map((a) => a.toLowerCase()).filter(Boolean))];
  return unique.length ? ` ${unique.join(" ")} ` : " ";
}

/** Delivery on either store; each copy's mail.received goes through the backend's outbox. */
export class SqlDeliveryRepository implements DeliveryRepository {
  private readonly backend: Backend;
  private readonly db: Sql;
  private readonly countsMessages: boolean;

  constructor(backend: Backend, options: DeliveryOptions) {
    this.backend = backend;
    this.db = backend.store;
    this.countsMessages = options.countsMessages;
  }

  async lookup(address: string): Promise<Recipient> {
    const email = address.toLowerCase();
    const row = await this.db.get<MailboxRow>(
      "SELECT m.id, m.project_id, m.kind, m.email, d.status FROM mailboxes m JOIN mail_domains d ON d.id = m.domain_id WHERE m.email = ?", [email]);
    if (row?.status === "verified") return recipientOf(row, () => true);
    const domain = email.slice(email.lastIndexOf("@") + 1);
    const owned = await this.db.get("SELECT 1 AS owned FROM mail_domains WHERE name = ? AND status = 'verified'", [domain]);
    return recipientOf(row, () => owned !== undefined);
  }

  store(message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]> {
    return this.backend.transact((tx) => this.storeIn(tx, message, recipients));
  }

  /** Several messages in one transaction (one commit), each in its own savepoint. */
  storeAll(items: { message: StoredMessage; recipients: string[] }[]): Promise<StoreOutcome[]> {
    return this.backend.transact(async () => {
      const outcomes: StoreOutcome[] = [];
      for (const { message, recipients } of items) {
        try {
          outcomes.push({ copies: await this.backend.transact((tx) => this.storeIn(tx, message, recipients)) });
        } catch (error) {
          outcomes.push({ error });
        }
      }
      return outcomes;
    });
  }

  private async storeIn(tx: Sql, message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]> {
    const targets = await this.mailboxesReached(tx, recipients);
    if (targets.length === 0) return [];
    // A structured clone (the writer thread's path) makes a Uint8Array of the Buffer: either binds as bytes.
    const raw = message.raw;
    const content = (await tx.get<{ id: number }>("INSERT INTO message_contents (raw, size, detail) VALUES (?, ?, ?) RETURNING id", [raw, raw.length, JSON.stringify(message.detail)]))!;
    const fromAddrs = addressList(message.from.map((a) => a.email));
    const toAddrs = addressList(message.recipientAddresses);
    const addresses = JSON.stringify([...new Set([...message.from.map((a) => a.email), ...message.recipientAddresses].map((a) => a.toLowerCase()).filter(Boolean))]);
    const copies: DeliveredCopy[] = [];
    for (const target of targets) {
      // First: locks the mailbox's row until commit, so the uid read next is this transaction's alone.
      await tx.run("UPDATE mailboxes SET used_bytes = used_bytes + ? WHERE id = ?", [raw.length, target.id]);
      const { uid } = (await tx.get<{ uid: number }>("SELECT COALESCE(MAX(uid), 0) + 1 AS uid FROM mailbox_messages WHERE mailbox_id = ?", [target.id]))!;
      await tx.run(
        `INSERT INTO mailbox_messages (mailbox_id, uid, content_id, received_ms, subject, from_json, from_addrs, to_addrs, has_attachment, rfc_message_id, preview, quarantined)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [target.id, uid, content.id, message.receivedMs, message.subject, JSON.stringify(message.from), fromAddrs, toAddrs, message.hasAttachment, message.rfcMessageId, message.preview, message.quarantined],
      );
      if (this.countsMessages) {
        await tx.run(
          `INSERT INTO mailbox_message_counts (mailbox_id, messages, last_uid) VALUES (?, 1, ?)
           ON CONFLICT (mailbox_id) DO UPDATE SET messages = mailbox_message_counts.messages + 1, last_uid = excluded.last_uid`, [target.id, uid]);
      }
      // WHERE true: SQLite reads an ON CONFLICT after INSERT ... SELECT ... FROM as a join's ON without it.
      await tx.run(
        `INSERT INTO mailbox_message_addresses (mailbox_id, address, received_ms, uid) SELECT ?, value, ?, ? FROM ${tx.dialect.jsonArray("?")} WHERE true ON CONFLICT DO NOTHING`,
        [target.id, message.receivedMs, uid, addresses],
      );
      const copy = { projectId: target.project_id, mailboxId: target.id, mailbox: target.email, uid: Number(uid) };
      await this.backend.emit(tx, copy.projectId, "mail.received", receivedData(copy, message));
      copies.push(copy);
    }
    // usedBytes changed: every instance's cached mailbox lists of these projects drop on commit.
    for (const projectId of new Set(targets.map((t) => t.project_id))) await tx.notify(MAILBOXES_CHANNEL, projectId);
    return copies;
  }

  /**
   * Distinct mailboxes in id order, resolved inside the transaction: membership is what it is at
   * commit. A released mailbox (decision O8) holds no address, so only a group could still name
   * it as a member: it is left out there.
   */
  private async mailboxesReached(tx: Sql, recipients: string[]): Promise<Target[]> {
    // Most mail names one recipient here: two index lookups, no JSON array to unpack and no
    // temporary b-trees for DISTINCT and ORDER BY (3.2 against 10.3 us a call on node:sqlite,
    // measured in one process; SQLite's writer thread spent 7 % of its time more than before the
    // one store, with this the largest part). Several recipients still take one statement, which
    // is one round trip on PostgreSQL.
    if (recipients.length === 1) {
      return tx.all<Target>(
        `SELECT id, project_id, email FROM mailboxes WHERE email = ? AND kind = 'mailbox'
         UNION ALL
         SELECT m.id, m.project_id, m.email FROM mailboxes g JOIN group_members gm ON gm.group_id = g.id JOIN mailboxes m ON m.id = gm.mailbox_id
         WHERE g.email = ? AND g.kind = 'group' AND m.released_at IS NULL
         ORDER BY id`,
        // One address is a mailbox or a group (emails are unique), and a group's members are
        // distinct; id order as below, in the store's collation, which every lock order follows.
        [recipients[0], recipients[0]],
      );
    }
    const rcpts = tx.dialect.jsonArray("?");
    return tx.all<Target>(
      `SELECT DISTINCT id, project_id, email FROM (
         SELECT id, project_id, email FROM mailboxes WHERE email IN (SELECT value FROM ${rcpts}) AND kind = 'mailbox'
         UNION ALL
         SELECT m.id, m.project_id, m.email FROM mailboxes g JOIN group_members gm ON gm.group_id = g.id JOIN mailboxes m ON m.id = gm.mailbox_id
         WHERE g.email IN (SELECT value FROM ${rcpts}) AND g.kind = 'group' AND m.released_at IS NULL
       ) reached ORDER BY id`,
      [JSON.stringify(recipients), JSON.stringify(recipients)],
    );
  }
}
