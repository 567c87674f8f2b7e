// The send handlers' DLP seam on either backend (server/test/backends.ts), through the real
// repositories, Backend and scanner: a warned send stores the message and its findings (log rows
// and mail.dlp events naming the message) in accept's transaction; a blocked send answers 422,
// stores no message and queues nothing, and its findings are written in a transaction of their own.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../generated/server/errors.ts";
import type { Backend } from "../db/backend.ts";
import type { DlpInspector } from "../dlp/dlp-port.ts";
import type { DlpRepository } from "../dlp/dlp-repository.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { MailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { verifyClaim } from "../maildomains/verification.ts";
import type { ProjectRepository } from "../projects/project-repository.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import { mailSendingHandlers } from "./handlers.ts";
import type { SentMessageRepository } from "./message-repository.ts";
import { noOutgoingHooks } from "./outgoing-hooks.ts";
import { MessageTokens } from "./tokens/message-token.ts";
import { ReturnPaths } from "./verp.ts";
import type { TemplateRepository } from "./template-repository.ts";

export interface SendDlpSetup {
  backend: Backend;
  projects: ProjectRepository;
  mailDomains: MailDomainRepository;
  zones: DnsRecordRepository;
  messages: SentMessageRepository;
  templates: TemplateRepository;
  dlpLog: DlpRepository;
  dlp: DlpInspector;
}

const pem = "-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n";
const card = "Pay with 4111 1111 1111 1111 exp 12/27";
const iban = "IBAN GB82 WEST 1234 5698 7654 32";

export function describeSendDlp(backend: BackendName, make: (c: Connection, secrets: SecretBox) => SendDlpSetup): void {
  describe(`send handlers' DLP on ${backend}`, () => {
    const store = useStore(backend);
    let s: SendDlpSetup;
    let handlers: ReturnType<typeof mailSendingHandlers>;
    beforeAll(() => {
      s = make(store.main, new SecretBox(randomBytes(32)));
      handlers = mailSendingHandlers({
        backend: s.backend, messages: s.messages, mailDomains: s.mailDomains, templates: s.templates, hooks: noOutgoingHooks, dlp: s.dlp,
        returnPaths: new ReturnPaths(new MessageTokens(randomBytes(32))), clock: { now: () => Date.now() }, relayName: "relay.test",
      });
    });
    afterAll(() => s.dlp.close());

    // A project with its sender domain connected and verified (its zone is the project's, decision
    // O3), under the given DLP mode.
    async function project(mode: "warn" | "block"): Promise<{ projectId: string; from: string }> {
      const projectId = await newProject(store.main);
      const name = `${projectId.toLowerCase().replace(/[^a-z0-9]/g, "")}.test`;
      await s.zones.createZone({ name, projectId });
      const claim = await s.mailDomains.create({ projectId, name, dkimSelector: "platform", dkimPrivateKey: pem, dkimPublicKey: "MIIBIjAN", verificationToken: `tok-${name}` });
      const unused = () => Promise.reject(new Error("a hosted zone needs no lookup"));
      const resolver = { resolveTxtJoinedOrEmpty: unused } as unknown as Parameters<typeof verifyClaim>[0]["resolver"];
      const { claim: verified } = await verifyClaim({ mailDomains: s.mailDomains, zones: s.zones, resolver, now: () => Date.now() }, claim!);
      expect(verified.status).toBe("verified");
      await s.projects.setDlpPolicy(projectId, mode, false);
      return { projectId, from: `news@${name}` };
    }
    const auth = (projectId: string) => ({ projectId, keyId: "key_test", scopes: [] });
    const sent = async (projectId: string) => sql<{ id: string }>(store.main, "SELECT id FROM sent_messages WHERE project_id = ? ORDER BY id", [projectId]);
    const jobs = async () => (await sql<{ n: number }>(store.main, "SELECT COUNT(*) AS n FROM jobs"))[0].n;
    const dlpEvents = async (projectId: string) =>
      (await sql<{ payload: string }>(store.main, "SELECT payload FROM events WHERE project_id = ? AND type = 'mail.dlp'", [projectId]))
        .map((r) => JSON.parse(r.payload).data as { messageId: string | null; action: string; to: string; finding: { type: string } })
        .sort((a, b) => (a.to + a.finding.type < b.to + b.finding.type ? -1 : 1));
    const log = async (projectId: string) => (await s.dlpLog.list(projectId, { limit: 50, offset: 0 })).events.map((e) => ({ messageId: e.messageId, action: e.action, to: e.to, type: e.finding.type }))
      .sort((a, b) => (a.to + a.type < b.to + b.type ? -1 : 1));

    it("warn: the message is stored and its findings logged and emitted with its id", async () => {
      const { projectId, from } = await project("warn");
      const res = (await handlers.sendMail({ body: { from, to: "bob@dest.test", subject: "Invoice", text: card }, auth: auth(projectId) } as never)) as unknown as { id: string; dlp: { type: string }[]; warnings: string[] };
      expect(res.dlp.map((f) => f.type)).toEqual(["card"]);
      expect(res.warnings).toHaveLength(1);
      expect(await sent(projectId)).toEqual([{ id: res.id }]);
      expect(await log(projectId)).toEqual([{ messageId: res.id, action: "warned", to: "bob@dest.test", type: "card" }]);
      expect(await dlpEvents(projectId)).toMatchObject([{ messageId: res.id, action: "warned", from, to: "bob@dest.test", finding: { type: "card" } }]);
    });

    it("warn in a batch: each affected message's findings carry its id and number", async () => {
      const { projectId, from } = await project("warn");
      const body = { from, subject: "Hello", text: "nothing here", messages: [{ to: "a@dest.test", subject: card }, { to: "b@dest.test" }, { to: "c@dest.test", subject: iban }] };
      const res = (await handlers.sendMailBatch({ body, auth: auth(projectId) } as never)) as unknown as { total: number; results: { to: string; id: string }[]; dlp: { message: number }[] };
      expect(res.total).toBe(3);
      expect(res.dlp.map((f) => f.message)).toEqual([0, 2]);
      const id = (to: string) => res.results.find((r) => r.to === to)!.id;
      expect((await sent(projectId)).length).toBe(3);
      expect(await log(projectId)).toEqual([
        { messageId: id("a@dest.test"), action: "warned", to: "a@dest.test", type: "card" },
        { messageId: id("c@dest.test"), action: "warned", to: "c@dest.test", type: "iban" },
      ]);
      expect((await dlpEvents(projectId)).map((e) => [e.messageId, e.finding.type])).toEqual([[id("a@dest.test"), "card"], [id("c@dest.test"), "iban"]]);
    });

    it("block: 422 dlp_blocked, no message and no job stored, the finding logged and emitted without a message id", async () => {
      const { projectId, from } = await project("block");
      const before = await jobs();
      const refused = await handlers.sendMail({ body: { from, to: "bob@dest.test", subject: "Invoice", text: card }, auth: auth(projectId) } as never).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ApiError);
      expect(refused).toMatchObject({ statusCode: 422, code: "dlp_blocked" });
      expect(await sent(projectId)).toEqual([]);
      expect(await jobs()).toBe(before);
      expect(await log(projectId)).toEqual([{ messageId: null, action: "blocked", to: "bob@dest.test", type: "card" }]);
      expect(await dlpEvents(projectId)).toMatchObject([{ messageId: null, action: "blocked", from, to: "bob@dest.test", finding: { type: "card" } }]);
    });

    it("block in a batch: nothing of the batch is stored, every affected message's findings are logged", async () => {
      const { projectId, from } = await project("block");
      const before = await jobs();
      const body = { from, subject: "Hello", text: "nothing here", messages: [{ to: "a@dest.test", subject: card }, { to: "b@dest.test" }, { to: "c@dest.test", subject: iban }] };
      const refused = await handlers.sendMailBatch({ body, auth: auth(projectId) } as never).catch((e: unknown) => e);
      expect(refused).toMatchObject({ statusCode: 422, code: "dlp_blocked" });
      expect(await sent(projectId)).toEqual([]);
      expect(await jobs()).toBe(before);
      expect(await log(projectId)).toEqual([
        { messageId: null, action: "blocked", to: "a@dest.test", type: "card" },
        { messageId: null, action: "blocked", to: "c@dest.test", type: "iban" },
      ]);
      expect((await dlpEvents(projectId)).map((e) => [e.messageId, e.to, e.finding.type])).toEqual([[null, "a@dest.test", "card"], [null, "c@dest.test", "iban"]]);
    });
  });
}
