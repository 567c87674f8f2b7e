// A plain-JavaScript integrator, on whatever Node runs it (20 or later).
import {
  createPlatformClient,
  paginate,
  verifyWebhookSignature,
  signWebhookBody,
  withIdempotencyKey,
} from "@platform-api/client";

const [baseUrl, apiKey, domain] = process.argv.slice(2);
const client = createPlatformClient({ baseUrl, apiKey });
const created = await client.POST("/v1/mailboxes", {
  body: { name: "js-client", domain, password: "correct horse battery" },
});
if (created.error) throw new Error(JSON.stringify(created.error));
const listed = await client.GET("/v1/mailboxes");
const refused = await createPlatformClient({
  baseUrl,
  apiKey: "platform_sk_" + "x".repeat(32),
  maxRetries: 0,
}).GET("/v1/mailboxes");
const walked = [];
for await (const n of paginate(
  async (offset, limit) => ({ items: [0, 1, 2, 3, 4].slice(offset, offset + limit) }),
  { limit: 2 },
))
  walked.push(n);
const body = '{"id":"evt_1"}';
console.log(
  JSON.stringify({
    node: process.versions.node,
    email: created.data.email,
    listed: listed.data.mailboxes.map((m) => m.email),
    refused: { status: refused.response.status, code: refused.error.code },
    walked,
    signatureOk: verifyWebhookSignature(body, signWebhookBody(body, "whsec_x"), "whsec_x"),
    key: typeof withIdempotencyKey({ to: "a@b.test" }).idempotencyKey,
  }),
);
