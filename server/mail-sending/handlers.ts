// Outgoing mail over HTTP: send and send-batch read top-down as steps (prepare each message,
// inspect with DLP, accept in one transaction with idempotency, suppression and relay jobs),
// plus the list, detail, cancel and stats reads. getMailPolicy and listDlpEvents belong to the
// DLP area (server/dlp).
import { createHash } from "node:crypto";
import { ApiError } from "../../generated/server/errors.ts";
import type { MailSendingHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { Backend } from "../db/backend.ts";
import type { Sql } from "../db/sql.ts";
import type { DlpFinding, DlpInspector, DlpRecordContext, DlpVerdict } from "../dlp/dlp-port.ts";
import { invalidFields, notFound, type FieldProblem } from "../http/errors.ts";
import type { Clock } from "../jobs/clock.ts";
import type { MailDomainRepository } from "../maildomains/maildomain-repository.ts";
import type { AcceptOutcome, MessageStatus, SentMessageRepository } from "./message-repository.ts";
import type { OutgoingMailHooks } from "./outgoing-hooks.ts";
import { prepareMessage, type MessageInput, type Prepared } from "./prepare-message.ts";
import { mailStats } from "./stats.ts";
import type { TemplateRepository } from "./template-repository.ts";
import type { Vars } from "./substitute.ts";
import type { ReturnPaths } from "./verp.ts";

export interface MailSendingDeps {
  /** The DLP records' transaction: a blocked send's own, a warned send's savepoint of the accept. */
  backend: Backend;
  messages: SentMessageRepository;
  mailDomains: MailDomainRepository;
  templates: TemplateRepository;
  hooks: OutgoingMailHooks;
  /** The signed VERP addresses (T6); the To recipient's is stored with the message. */
  returnPaths: ReturnPaths;
  dlp: DlpInspector;
  clock: Clock;
  /** `relay` of messages the built-in relay (or the smarthost) takes. */
  relayName: string;
}

type SendBody = MessageInput & { idempotencyKey?: string };
type BatchBody = Omit<MessageInput, "to" | "vars" | "attachments" | "cc" | "bcc" | "replyTo"> & {
  idempotencyKey?: string;
  messages: { to: string; vars?: Vars; subject?: string; html?: string; attachments?: MessageInput["attachments"] }[];
};

// Same key and same body means the same request: a canonical JSON (sorted keys) makes the hash
// independent of the order a client wrote the fields in.
function bodyHash(body: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, canonical(x)])) : v;
  return createHash("sha256").update(JSON.stringify(canonical(body))).digest("hex");
}

const idempotencyConflict = () =>
  new ApiError(409, "idempotency_conflict", "this idempotencyKey was used in the last 24 hours with a different request body");

function dlpBlocked(findings: DlpFinding[]): ApiError {
  const types = [...new Set(findings.map((f) => f.type))].join(", ");
  return new ApiError(422, "dlp_blocked", `dlp: sending is forbidden by the project policy (findings: ${types})`);
}

// Shared fields are checked once per message; a problem of one is reported once, at its own path.
function sharedOnce(problems: FieldProblem[]): FieldProblem[] {
  const unique = new Map<string, FieldProblem>();
  for (const p of problems) {
    const path = p.path.replace(/^body\.messages\[\d+\]\.(from|headers|sendAt|template)/, "body.$1");
    unique.set(`${path}|${p.message}`, { path, message: p.message });
  }
  return [...unique.values()];
}

const findingsOf = (v: DlpVerdict) => (v.mode === "off" ? [] : v.findings);

export function mailSendingHandlers(deps: MailSendingDeps): Pick<
  MailSendingHandlers<AuthContext>, "sendMail" | "sendMailBatch" | "listSentMessages" | "getSentMessage" | "cancelMessage" | "getMailStats"
> {
  const prepareDeps = () => ({ mailDomains: deps.mailDomains, templates: deps.templates, hooks: deps.hooks, returnPaths: deps.returnPaths, now: deps.clock.now() });

  // One record after the other, in one transaction: backend.transact joins the accept's as a
  // savepoint when called inside it (the DLP port still takes the old transaction handle; once it
  // takes Sql, the accept's `tx` is handed on directly).
  function recordAll(projectId: string, items: { findings: DlpFinding[]; context: DlpRecordContext }[]): Promise<void> {
    return deps.backend.transact(async (tx: Sql) => {
      for (const { findings, context } of items) await deps.dlp.record(tx, projectId, findings, context);
    });
  }

  // No message is stored, but every finding is logged and emitted, together or not at all.
  async function recordBlocked(projectId: string, blocked: { prepared: Prepared; findings: DlpFinding[] }[]): Promise<never> {
    const items = blocked.map(({ prepared: { message: m }, findings }) => ({ findings, context: { action: "blocked" as const, messageId: null, from: m.from, to: m.to } }));
    await recordAll(projectId, items);
    throw dlpBlocked(blocked.flatMap((b) => b.findings));
  }

  return {
    async sendMail({ body, auth }) {
      const request = body as unknown as SendBody;
      const prepared = await prepareMessage(prepareDeps(), auth.projectId, request);
      const verdict = await deps.dlp.inspect(auth.projectId, prepared.content);
      const findings = findingsOf(verdict);
      if (findings.length && verdict.mode === "block") await recordBlocked(auth.projectId, [{ prepared, findings }]);
      const warned = findings.length > 0;
      const m = prepared.message;
      const result = await deps.messages.accept({
        projectId: auth.projectId,
        messages: [m],
        relayName: deps.relayName,
        idempotency: request.idempotencyKey ? { key: request.idempotencyKey, bodyHash: bodyHash(body) } : undefined,
        alsoWrite: warned ? () => recordAll(auth.projectId, [{ findings, context: { action: "warned", messageId: m.id, from: m.from, to: m.to } }]) : undefined,
        respond: ([o]) => ({ id: o.id, status: o.status, relay: o.relay, relayMessageId: o.relayMessageId, ...(warned ? { warnings: verdict.warnings, dlp: findings } : {}) }),
      });
      if (result.kind === "conflict") throw idempotencyConflict();
      return result.response as never;
    },

    async sendMailBatch({ body, auth }) {
      const request = body as unknown as BatchBody;
      const { messages: items, idempotencyKey, ...shared } = request;
      const problems: FieldProblem[] = [];
      const prepared: Prepared[] = [];
      for (const [i, item] of items.entries()) {
        const input: MessageInput = { ...shared, to: item.to, vars: item.vars, subject: item.subject ?? shared.subject, html: item.html ?? shared.html, attachments: item.attachments };
        try {
          prepared.push(await prepareMessage(prepareDeps(), auth.projectId, input, `body.messages[${i}]`));
        } catch (error) {
          if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
          problems.push(...((error.toBody() as { details?: FieldProblem[] }).details ?? []));
        }
      }
      if (problems.length) throw invalidFields(sharedOnce(problems));

      // Scanned side by side within the scanner's threads, under one time budget for the batch.
      const verdicts: DlpVerdict[] = await deps.dlp.inspectBatch(auth.projectId, prepared.map((p) => p.content));
      const affected = prepared.map((p, i) => ({ prepared: p, verdict: verdicts[i], findings: findingsOf(verdicts[i]).map((f) => ({ ...f, message: i })) })).filter((a) => a.findings.length);
      if (affected.some((a) => a.verdict.mode === "block")) await recordBlocked(auth.projectId, affected);
      const warnings = affected.flatMap(({ verdict, findings }) => verdict.warnings.map((w) => `message ${findings[0].message}: ${w}`));
      const dlp = affected.flatMap((a) => a.findings);

      const result = await deps.messages.accept({
        projectId: auth.projectId,
        messages: prepared.map((p) => p.message),
        relayName: deps.relayName,
        idempotency: idempotencyKey ? { key: idempotencyKey, bodyHash: bodyHash(body) } : undefined,
        alsoWrite: dlp.length
          ? () => recordAll(auth.projectId, affected.map(({ prepared: { message: m }, findings }) => ({ findings, context: { action: "warned", messageId: m.id, from: m.from, to: m.to } })))
          : undefined,
        respond: (outcomes: AcceptOutcome[]) => {
          const counts: Record<string, number> = {};
          for (const o of outcomes) counts[o.status] = (counts[o.status] ?? 0) + 1;
          return { total: outcomes.length, counts, results: outcomes.map((o) => ({ to: o.to, id: o.id, status: o.status })), ...(dlp.length ? { warnings, dlp } : {}) };
        },
      });
      if (result.kind === "conflict") throw idempotencyConflict();
      return result.response as never;
    },

    async listSentMessages({ query, auth }) {
      const q = query as { limit?: number; offset?: number; status?: MessageStatus; campaign?: string };
      return { messages: await deps.messages.list(auth.projectId, { limit: q.limit ?? 50, offset: q.offset ?? 0, status: q.status, campaign: q.campaign }) };
    },

    async getSentMessage({ params, auth }) {
      const detail = await deps.messages.detail(auth.projectId, params.id);
      if (!detail) throw notFound(`message ${params.id}`);
      return detail;
    },

    async cancelMessage({ params, auth }) {
      const r = await deps.messages.cancel(auth.projectId, params.id);
      if (r.kind === "not_found") throw notFound(`message ${params.id}`);
      if (r.kind === "not_cancelable") throw new ApiError(409, "not_cancelable", `message ${params.id} is ${r.status}; only a scheduled message can be canceled`);
      return { id: params.id, status: "canceled" as const };
    },

    async getMailStats({ query, auth }) {
      const q = query as { days?: number; campaign?: string };
      const days = q.days ?? 30;
      return mailStats(days, await deps.messages.funnel(auth.projectId, deps.clock.now() - days * 86_400_000, q.campaign));
    },
  };
}
