// The seed's operation table (section 4, plus the two routes its mail-sending rules name), held
// as data so the contract can be checked against it row by row.
export interface SeedOperation {
  method: "get" | "post" | "delete";
  path: string;
  scope: string;
}

const rows = `
post /v1/mail/send mail:send
post /v1/mail/send-batch mail:send
get /v1/mail/messages mail:send
get /v1/mail/messages/{id} mail:send
delete /v1/mail/messages/{id} mail:send
get /v1/mail/stats mail:send
get /v1/mail/policy mail:send
get /v1/mail/dlp-events mail:send
get /v1/mailboxes/{id}/messages mail:read
get /v1/mailboxes/{id}/messages/{msgId} mail:read
get /v1/mailboxes/{id}/messages/by-message-id mail:read
post /v1/mailboxes mail:mailboxes
get /v1/mailboxes mail:mailboxes
delete /v1/mailboxes/{id} mail:mailboxes
post /v1/mailboxes/{id}/shared mail:mailboxes
get /v1/groups mail:mailboxes
post /v1/groups mail:mailboxes
delete /v1/groups/{id} mail:mailboxes
get /v1/groups/{id}/members mail:mailboxes
post /v1/groups/{id}/members mail:mailboxes
delete /v1/groups/{id}/members/{userId} mail:mailboxes
post /v1/webmail/login-link webmail:login
post /v1/maildomains mail:domains
get /v1/maildomains mail:domains
get /v1/maildomains/{domain} mail:domains
get /v1/dns/{zone}/records dns:read
post /v1/dns/{zone}/records dns:records
delete /v1/dns/{zone}/records/{id} dns:records
post /v1/certs/issue cert:issue
get /v1/certs/{id}/status cert:read
get /v1/certs/{id}/download cert:read
post /v1/webhooks webhooks
get /v1/webhooks webhooks
delete /v1/webhooks/{id} webhooks
get /v1/webhooks/{id}/deliveries webhooks
post /v1/webhooks/{id}/deliveries/{deliveryId}/redeliver webhooks
post /v1/messenger/mybots messenger:bots
get /v1/messenger/mybots messenger:bots
post /v1/messenger/mybots/bulk messenger:bots
get /v1/messenger/mybots/{id} messenger:bots
post /v1/messenger/mybots/{id}/webhook messenger:bots
get /v1/messenger/mypresets messenger:bots
post /v1/messenger/mybots/create-link messenger:bots
`;

export const seedOperations: SeedOperation[] = rows
  .trim()
  .split("\n")
  .map((line) => {
    const [method, path, scope] = line.split(" ");
    return { method: method as SeedOperation["method"], path, scope };
  });

/** Section 5's scope table: 33 scopes. */
export const seedScopes =
  `mail:send mail:read mail:suppressions mail:mailboxes mail:domains mail:templates
notify:send mail:subscriptions protection:verify domains:read mail:migrate cert:issue cert:read cert:acme
cert:delegate pki:issue pki:read dns:read dns:records webhooks messenger:bots webmail:login brand:read
project:read billing:read audit:read siteconfig:read secrets:read secrets:write security:read otp:send
otp:verify otp:totp`.split(/\s+/);

/** Section 6's events. */
export const seedEvents = [
  "mail.received",
  "mail.delivered",
  "mail.bounced",
  "mail.complained",
  "mail.opened",
  "mail.clicked",
  "mail.dlp",
];

/** Events added under V1 beyond the seed's (docs/decisions.md): the mail domain status of decision O7. */
export const addedEvents = ["maildomain.status_changed"];
