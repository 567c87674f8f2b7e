import { type Client } from "openapi-fetch";
import type { paths } from "./openapi.js";
export type { paths, components, operations } from "./openapi.js";
/** The scope each operation requires, by operationId. */
export declare const operationScopes: {
    readonly addBot: "messenger:bots";
    readonly addBotsBulk: "messenger:bots";
    readonly addGroupMember: "mail:mailboxes";
    readonly cancelMessage: "mail:send";
    readonly createBotLink: "messenger:bots";
    readonly createDnsRecord: "dns:records";
    readonly createGroup: "mail:mailboxes";
    readonly createMailbox: "mail:mailboxes";
    readonly createMailDomain: "mail:domains";
    readonly createSuppression: "mail:suppressions";
    readonly createWebhook: "webhooks";
    readonly createWebmailLoginLink: "webmail:login";
    readonly deleteDnsRecord: "dns:records";
    readonly deleteGroup: "mail:mailboxes";
    readonly deleteMailbox: "mail:mailboxes";
    readonly deleteSuppression: "mail:suppressions";
    readonly deleteWebhook: "webhooks";
    readonly downloadCertificate: "cert:read";
    readonly findMailboxMessage: "mail:read";
    readonly getBotStatus: "messenger:bots";
    readonly getCertificateStatus: "cert:read";
    readonly getMailboxMessage: "mail:read";
    readonly getMailboxMessageAttachment: "mail:read";
    readonly getMailboxMessageRaw: "mail:read";
    readonly getMailDomain: "mail:domains";
    readonly getMailPolicy: "mail:send";
    readonly getMailStats: "mail:send";
    readonly getSentMessage: "mail:send";
    readonly issueCertificate: "cert:issue";
    readonly listBots: "messenger:bots";
    readonly listDlpEvents: "mail:send";
    readonly listDnsRecords: "dns:read";
    readonly listGroupMembers: "mail:mailboxes";
    readonly listGroups: "mail:mailboxes";
    readonly listMailboxes: "mail:mailboxes";
    readonly listMailboxMessages: "mail:read";
    readonly listMailDomains: "mail:domains";
    readonly listPresets: "messenger:bots";
    readonly listSentMessages: "mail:send";
    readonly listSuppressions: "mail:suppressions";
    readonly listWebhookDeliveries: "webhooks";
    readonly listWebhooks: "webhooks";
    readonly redeliverWebhookDelivery: "webhooks";
    readonly removeGroupMember: "mail:mailboxes";
    readonly sendMail: "mail:send";
    readonly sendMailBatch: "mail:send";
    readonly sendWebhookTestEvent: "webhooks";
    readonly setBotWebhook: "messenger:bots";
    readonly setMailboxShared: "mail:mailboxes";
};
export type OperationId = keyof typeof operationScopes;
export interface PlatformClientOptions {
    /** The service's base URL, such as http://127.0.0.1:8080 (paths start with /v1). */
    baseUrl: string;
    /** An API key `platform_sk_...`. */
    apiKey: string;
    /** How many times a 429 is retried after its Retry-After (default 2; 0 turns retries off). */
    maxRetries?: number;
    /** The longest Retry-After the client waits, in seconds; a longer one is returned as is. */
    maxRetryAfterSeconds?: number;
    /** A fetch implementation (default: the global fetch). */
    fetch?: typeof globalThis.fetch;
}
export type PlatformClient = Client<paths, "application/json">;
/**
 * A client whose every call is typed from the contract: `const { data, error } = await
 * client.GET("/v1/mailboxes")` gives `data` or the typed error body `{ error, code, details? }`.
 */
export declare function createPlatformClient(options: PlatformClientOptions): PlatformClient;
/** One page of a paged list: its items and whether more follow. */
export interface Page<T> {
    items: T[];
    /** From the answer's `hasMore`; when the answer has none, a full page means there may be more. */
    hasMore?: boolean;
}
/**
 * Walks a list that pages with `offset` and `limit`: calls `fetchPage(offset, limit)` until a
 * page says `hasMore: false` (or, for lists without `hasMore`, until a page comes back short),
 * yielding every item once. An error answer stops the walk by throwing it.
 *
 *   for await (const m of paginate((offset, limit) =>
 *     client.GET("/v1/mailboxes/{id}/messages", { params: { path: { id }, query: { offset, limit } } })
 *       .then(({ data, error }) => { if (error) throw error; return { items: data.messages, hasMore: data.hasMore }; }))) { ... }
 */
export declare function paginate<T>(fetchPage: (offset: number, limit: number) => Promise<Page<T>>, options?: {
    limit?: number;
    offset?: number;
}): AsyncGenerator<T, void, undefined>;
/**
 * A fresh idempotency key for a send (decision E6): create it once per message and reuse it on
 * every retry of that same message, so a send that timed out is never sent twice.
 */
export declare function newIdempotencyKey(): string;
/**
 * Returns the send request with an `idempotencyKey`, keeping one that is already there. Retrying
 * the returned body is safe: the service answers a repeated key with the original response.
 */
export declare function withIdempotencyKey<T extends object>(body: T & {
    idempotencyKey?: string;
}): T & {
    idempotencyKey: string;
};
