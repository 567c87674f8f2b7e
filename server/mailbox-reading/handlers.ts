// The reading operations of a hosted mailbox (the seed's three, and the attachment and raw
// downloads of decision M9) (seed §4 "Mailbox reading", decisions M1-M3).
// A mailbox of another project, a group's id or an unknown id is 404 like everywhere else; a
// message id is the message's number inside this mailbox, so another mailbox's id is 404 too.
import type { MailboxReadingHandlers } from "../../generated/server/handlers.ts";
import { ApiError } from "../../generated/server/errors.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { notFound } from "../http/errors.ts";
import { stripBrackets } from "../inbound/parse-message.ts";
import type { MailboxRepository } from "../mailboxes/mailbox-repository.ts";
import { sendDownload } from "../http/download.ts";
import { listAttachments, readAttachment } from "./attachments.ts";
import { uidOf, type MessageRepository, type MessageSummaryRecord, type Range } from "./message-repository.ts";


export interface MailboxReadingDeps {
  mailboxes: MailboxRepository;
  messages: MessageRepository;
}

/** M2: the 404 of a lookup carries how far it searched. */
class LookupNotFound extends ApiError {
  private readonly lookup: { scanned: number; reachedBack: string | null };

  constructor(code: "not_found" | "not_found_in_range", message: string, lookup: { scanned: number; reachedBack: string | null }) {
    super(404, code, message);
    this.lookup = lookup;
  }

  override toBody() {
    return { ...super.toBody(), lookup: this.lookup };
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

const summary = (m: MessageSummaryRecord) => ({
  id: String(m.uid),
  subject: m.subject,
  receivedAt: iso(m.receivedMs),
  hasAttachment: m.hasAttachment,
  rfcMessageId: m.rfcMessageId,
  from: m.from,
  preview: m.preview,
  quarantined: m.quarantined,
});

/**
 * `since` is strictly later, and a message received in the same second as `since` is not
 * returned (seed): the range starts at the next whole second. `before` is strictly earlier.
 */
function range(since: string | undefined, before: string | undefined): Range {
  const r: Range = {};
  if (since !== undefined) r.fromMs = Math.floor(Date.parse(since) / 1000) * 1000 + 1000;
  if (before !== undefined) r.beforeMs = Date.parse(before);
  return r;
}

export function mailboxReadingHandlers(deps: MailboxReadingDeps): MailboxReadingHandlers<AuthContext> {
  async function mailboxOf(projectId: string, id: string) {
    const mailbox = await deps.mailboxes.get(projectId, id, "mailbox");
    if (!mailbox) throw notFound(`mailbox ${id}`);
    return mailbox;
  }

  async function rawOf(projectId: string, id: string, msgId: string): Promise<Buffer> {
    const mailbox = await mailboxOf(projectId, id);
    const uid = uidOf(msgId);
    const raw = uid === undefined ? undefined : await deps.messages.getRaw(mailbox.id, uid);
    if (!raw) throw notFound(`message ${msgId} in mailbox ${id}`);
    return raw;
  }

  return {
    async listMailboxMessages({ params, query, auth }) {
      const mailbox = await mailboxOf(auth.projectId, params.id);
      const limit = query.limit ?? 50;
      const offset = query.offset ?? 0;
      const { messages, total } = await deps.messages.list(mailbox.id, {
        limit,
        offset,
        ...range(query.since, query.before),
        hasAttachment: query.hasAttachment,
        with: query.with?.trim().toLowerCase(),
        from: query.from?.trim().toLowerCase(),
        to: query.to?.trim().toLowerCase(),
      });
      return { messages: messages.map(summary), total, offset, limit, hasMore: offset + messages.length < total };
    },

    async getMailboxMessage({ params, auth }) {
      const mailbox = await mailboxOf(auth.projectId, params.id);
      const uid = uidOf(params.msgId);
      const m = uid === undefined ? undefined : await deps.messages.get(mailbox.id, uid);
      if (!m) throw notFound(`message ${params.msgId} in mailbox ${params.id}`);
      const { messageId, inReplyTo, references, to, text, headers } = m.detail;
      const raw = await deps.messages.getRaw(mailbox.id, m.uid);
      const attachments = raw ? await listAttachments(raw) : [];
      return { ...summary(m), messageId, inReplyTo, references, to, text, headers, attachments };
    },

    async getMailboxMessageAttachment({ params, auth, reply }) {
      const raw = await rawOf(auth.projectId, params.id, params.msgId);
      const file = await readAttachment(raw, params.attachmentId);
      if (!file) throw notFound(`attachment ${params.attachmentId} of message ${params.msgId} in mailbox ${params.id}`);
      // Never the sender's type: a received file is not rendered on this origin (decision M9).
      sendDownload(reply, "application/octet-stream", file.filename, file.content);
      return reply as never;
    },

    async getMailboxMessageRaw({ params, auth, reply }) {
      const raw = await rawOf(auth.projectId, params.id, params.msgId);
      sendDownload(reply, "message/rfc822", `${params.msgId}.eml`, raw);
      return reply as never;
    },

    async findMailboxMessage({ params, query, auth }) {
      const mailbox = await mailboxOf(auth.projectId, params.id);
      const wanted = stripBrackets(query.value);
      const narrowed = query.since !== undefined || query.before !== undefined;
      const result = await deps.messages.findByMessageId(mailbox.id, wanted, range(query.since, query.before));
      if (result.found) {
        return { message: { id: String(result.found.uid), subject: result.found.subject, rfcMessageId: result.found.rfcMessageId }, lookup: { source: result.source, scanned: result.scanned } };
      }
      const reachedBack = result.reachedBackMs === undefined ? null : iso(result.reachedBackMs);
      const searched = `scanned ${result.scanned} message${result.scanned === 1 ? "" : "s"}${reachedBack ? ` back to ${reachedBack}` : ""}`;
      throw narrowed
        ? new LookupNotFound("not_found_in_range", `no message with Message-ID <${wanted}> in the given range (${searched}); it may exist outside the range`, { scanned: result.scanned, reachedBack })
        : new LookupNotFound("not_found", `no message with Message-ID <${wanted}> in this mailbox (${searched})`, { scanned: result.scanned, reachedBack });
    },
  };
}
