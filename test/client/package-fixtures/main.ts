// A strict TypeScript integrator: compiled with tsc --noEmit --strict, then run.
import { createPlatformClient, type components } from "@platform-api/client";

type Mailbox = components["schemas"]["CreateMailboxResponse"];
const [baseUrl, apiKey, domain] = process.argv.slice(2);
const client = createPlatformClient({ baseUrl, apiKey, maxRetries: 0 });
const { data, error } = await client.POST("/v1/mailboxes", {
  body: { name: "ts-client", domain, password: "correct horse battery" },
});
if (error) {
  // Typed error body: code is a known string.
  const code: string = error.code;
  throw new Error(code);
}
const email: string = data.email;
const missing = await client.GET("/v1/groups/{id}/members", {
  params: { path: { id: "grp_missing" } },
});
const status: number = missing.response.status;
const mailbox: Mailbox | undefined = undefined;
console.log(JSON.stringify({ email, status, code: missing.error?.code, none: mailbox ?? null }));
