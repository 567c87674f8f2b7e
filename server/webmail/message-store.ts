// What the webmail pages read mail from: the mailbox's received mail (server/mailbox-reading),
// shaped for display. HTML bodies are passed as received; pages sanitize them (safe-html.ts).
import type { Address } from "../inbound/parse-message.ts";
import { listAttachments, readAttachment, type AttachmentFile, type AttachmentInfo } from "../mailbox-reading/attachments.ts";
import { uidOf, type MessageRepository } from "../mailbox-reading/message-repository.ts";

export interface MessageSummary {
  id: string;
  subject: string;
  from: string;
  receivedAt: string;
  preview: string;
  /** Its From domain failed DMARC asking for quarantine (decision I3): the sender is unverified. */
  quarantined: boolean;
}

export interface MessageView extends MessageSummary {
  to: string[];
  text: string;
  /** The HTML body as received, unsafe; null for a text-only message. */
  html: string | null;
  attachments: AttachmentInfo[];
}

export interface MessageStore {
  list(mailboxId: string, limit: number): Promise<MessageSummary[]>;
  get(mailboxId: string, id: string): Promise<MessageView | undefined>;
  attachment(mailboxId: string, id: string, attachmentId: string): Promise<AttachmentFile | undefined>;
  /** The message as received (an .eml file). */
  raw(mailboxId: string, id: string): Promise<Buffer | undefined>;
}


const show = (a: Address) => (a.name ? `${a.name} <${a.email}>` : a.email);

export function mailboxMessageStore(messages: MessageRepository): MessageStore {
  return {
    async list(mailboxId, limit) {
      const page = await messages.list(mailboxId, { limit, offset: 0 });
      return page.messages.map((m) => ({
        id: String(m.uid),
        subject: m.subject,
        from: m.from.map(show).join(", "),
        receivedAt: new Date(m.receivedMs).toISOString(),
        preview: m.preview,
        quarantined: m.quarantined,
      }));
    },
    async get(mailboxId, id) {
      const uid = uidOf(id);
      const m = uid === undefined ? undefined : await messages.get(mailboxId, uid);
      if (!m) return undefined;
      const raw = await messages.getRaw(mailboxId, m.uid);
      return {
        id,
        subject: m.subject,
        from: m.from.map(show).join(", "),
        receivedAt: new Date(m.receivedMs).toISOString(),
        preview: m.preview,
        quarantined: m.quarantined,
        to: m.detail.to.map(show),
        text: m.detail.text,
        html: m.detail.html,
        attachments: raw ? await listAttachments(raw) : [],
      };
    },
    async attachment(mailboxId, id, attachmentId) {
      const raw = await this.raw(mailboxId, id);
      return raw && readAttachment(raw, attachmentId);
    },
    async raw(mailboxId, id) {
      const uid = uidOf(id);
      return uid === undefined ? undefined : messages.getRaw(mailboxId, uid);
    },
  };
}
