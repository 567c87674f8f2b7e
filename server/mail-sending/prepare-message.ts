// The accept path's steps before anything is stored, one message at a time: the sender domain
// must be the project's (E2) and verified (decision O1), headers and header-bound values are checked (no injection, no
// reserved names), the template and `{{vars}}` are filled in, attachments are decoded strictly and
// capped (S9), sendAt is bounded (S5), and the outgoing hooks (tracking, unsubscribe) have their
// say. Every problem is collected, so one 400 names all broken fields; nothing is written here.
import { ApiError } from "../../generated/server/errors.ts";
import type { OutgoingContent } from "../dlp/dlp-port.ts";
import { invalidFields, type FieldProblem } from "../http/errors.ts";
import { newId } from "../ids.ts";
import type { MailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { notVerified } from "../maildomains/not-verified.ts";
import { crlfProblem, headerProblems } from "./header-rules.ts";
import type { MailStream, MessageAttachment, NewMessage } from "./message-repository.ts";
import type { OutgoingMailHooks } from "./outgoing-hooks.ts";
import { domainOf } from "./relay-jobs.ts";
import { fill, type Vars } from "./substitute.ts";
import type { TemplateRepository } from "./template-repository.ts";
import { rfcMessageIdFor, type ReturnPaths } from "./verp.ts";

export const MAX_ATTACHMENT_BYTES = 15 * 1024 * 1024;
const HORIZON_MS = 90 * 86_400_000;

export interface AttachmentInput {
  filename: string;
  content: string;
  contentType?: string;
}

/** One message as the request states it (a single send, or a batch item merged with the shared fields). */
export interface MessageInput {
  from: string;
  to: string;
  subject?: string;
  template?: { id: string; version?: number; vars?: Vars };
  vars?: Vars;
  text?: string;
  html?: string;
  cc?: string[];
  bcc?: string[];
  replyTo?: string[];
  attachments?: AttachmentInput[];
  category?: string;
  headers?: Record<string, string>;
  stream?: MailStream;
  scope?: string;
  campaign?: string;
  track?: boolean;
  unsubscribe?: boolean;
  sendAt?: string;
}

export interface PrepareDeps {
  mailDomains: MailDomainRepository;
  templates: TemplateRepository;
  hooks: OutgoingMailHooks;
  returnPaths: ReturnPaths;
  now: number;
}

export interface Prepared {
  message: NewMessage;
  /** What DLP scans: the message as it will be sent. */
  content: OutgoingContent;
}

/** `path` prefixes field names in `details` (`body` or `body.messages[3]`). */
export async function prepareMessage(deps: PrepareDeps, projectId: string, input: MessageInput, path = "body"): Promise<Prepared> {
  const problems: FieldProblem[] = [];
  const senderDomain = domainOf(input.from);
  const domain = await deps.mailDomains.getByName(projectId, senderDomain);
  if (!domain) {
    problems.push({ path: `${path}.from`, message: `the sender domain ${senderDomain} is not a connected mail domain of this project` });
  } else if (domain.status !== "verified") {
    // `from` is shared by a batch's messages: reported once, at the request's own field.
    throw notVerified(domain, path.startsWith("body.messages[") ? "body.from" : `${path}.from`);
  }
  problems.push(...headerProblems(input.headers, `${path}.headers`));
  for (const [field, values] of [["to", [input.to]], ["cc", input.cc], ["bcc", input.bcc], ["replyTo", input.replyTo], ["from", [input.from]]] as const) {
    (values ?? []).forEach((v) => problems.push(...crlfProblem(v, `${path}.${field}`)));
  }

  let { subject, text, html } = input;
  if (input.template) {
    const t = await deps.templates.resolve(projectId, input.template.id, input.template.version);
    if (!t) {
      const which = input.template.version ? `version ${input.template.version} of template ${input.template.id}` : `template ${input.template.id}`;
      problems.push({ path: `${path}.template${input.template.version ? ".version" : ".id"}`, message: `${which} does not exist in this project` });
    } else {
      subject ??= t.subject;
      text ??= t.text;
      html ??= t.html;
    }
  }
  const vars = { ...input.template?.vars, ...input.vars };
  subject = fill(subject, vars);
  text = fill(text, vars);
  html = fill(html, vars, true);
  if (subject === undefined && problems.length === 0) problems.push({ path: `${path}.subject`, message: "is required unless a template is given" });
  problems.push(...crlfProblem(subject, `${path}.subject`));

  const attachments = decodeAttachments(input.attachments ?? [], `${path}.attachments`, problems);
  const sendAt = sendAtOf(input.sendAt, deps.now, `${path}.sendAt`, problems);
  if (problems.length) throw invalidFields(problems);
  const total = attachments.reduce((n, a) => n + a.content.length, 0);
  if (total > MAX_ATTACHMENT_BYTES) {
    throw new ApiError(413, "payload_too_large", `attachments total ${total} bytes; the limit is ${MAX_ATTACHMENT_BYTES} bytes (15 MB) per message`);
  }

  const id = newId("msg");
  const stream = input.stream ?? "transactional";
  const scope = input.scope ?? "";
  const hooked = deps.hooks.prepare({
    messageId: id, projectId, from: input.from, to: input.to, stream, scope,
    track: input.track ?? false, unsubscribe: input.unsubscribe ?? false, html, text,
  });
  const message: NewMessage = {
    id, from: input.from, to: input.to, cc: input.cc ?? [], bcc: input.bcc ?? [], replyTo: input.replyTo ?? [],
    subject: subject ?? "", text, html: hooked.html, headers: { ...input.headers, ...hooked.headers },
    category: input.category, campaign: input.campaign, stream, scope,
    track: input.track ?? false, unsubscribe: input.unsubscribe ?? false,
    rfcMessageId: rfcMessageIdFor(id, senderDomain), returnPath: deps.returnPaths.for({ id, to: input.to, from: input.from }),
    sendAt, attachments, links: hooked.links,
  };
  return { message, content: { subject, text, html, headers: input.headers, attachments } };
}

// Strict base64 (RFC 4648 with padding): Node's decoder skips junk silently, so the length and a
// round trip decide. The contract's pattern already refuses foreign characters.
function decodeAttachments(list: AttachmentInput[], path: string, problems: FieldProblem[]): MessageAttachment[] {
  return list.map((a, i) => {
    const content = Buffer.from(a.content, "base64");
    if (a.content.length % 4 !== 0 || content.toString("base64") !== a.content) {
      problems.push({ path: `${path}[${i}].content`, message: "is not valid base64 (RFC 4648, with padding)" });
    }
    return { filename: a.filename, contentType: a.contentType, content };
  });
}

/** Undefined for a send now; S5: past times send at once, more than 90 days ahead is refused. */
function sendAtOf(raw: string | undefined, now: number, path: string, problems: FieldProblem[]): number | undefined {
  if (raw === undefined) return undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) {
    problems.push({ path, message: "is not an ISO 8601 date-time" });
    return undefined;
  }
  if (at > now + HORIZON_MS) problems.push({ path, message: "is more than 90 days ahead" });
  return at > now ? at : undefined;
}
