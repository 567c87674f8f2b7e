// server/README.md's nginx block as an operator deploys it (issue 27 item 10): TLS with a
// certificate the platform itself issued (as the README suggests), a send with a 2.7 MB attachment
// (nginx's default 1 MB body limit answered its own HTML 413 before the block set
// client_max_body_size), and TRACE handed on to the platform. Only the addresses, the port and the
// certificate files differ from the README (test/support/nginx.ts substitutes exactly those).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startNginx, type Proxy } from "../../test/support/nginx.ts";
import { splitChain } from "../test/certificate-tools.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { until } from "./until.ts";

let p: TestPlatform;
let t: Tenant;
let proxy: Proxy;
let agent: Agent;
let host: string;
const files = mkdtempSync(path.join(tmpdir(), "readme-proxy-"));

beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("deploy");
  host = `api.${t.domain}`;
  // The certificate for the proxy, issued by the platform (local CA) for a name in a hosted zone.
  const order = await t.api("POST", "/v1/certs/issue", { domains: [host] });
  expect(order.status).toBe(200);
  await until("the proxy certificate is active", async () => (await t.api("GET", `/v1/certs/${order.body.id}/status`)).body.status === "active");
  const { fullchain, privkey } = (await t.api("GET", `/v1/certs/${order.body.id}/download`)).body;
  const cert = path.join(files, "fullchain.pem");
  const key = path.join(files, "privkey.pem");
  writeFileSync(cert, fullchain);
  writeFileSync(key, privkey, { mode: 0o600 });
  proxy = await startNginx([p.url], { cert, key });
  // A client that trusts the local CA (the chain's last certificate) and asks for the API's name.
  const ca = splitChain(fullchain).at(-1)!.toString();
  agent = new Agent({ connect: { ca, servername: host } });
}, 300_000);
afterAll(async () => {
  await proxy?.stop();
  await agent?.close();
  await p?.stop();
  rmSync(files, { recursive: true, force: true });
});

const call = (method: string, url: string, body?: unknown) =>
  undiciFetch(`${proxy.url}${url}`, {
    method,
    dispatcher: agent,
    headers: { authorization: `Bearer ${t.key}`, ...(body ? { "content-type": "application/json" } : {}), host },
    body: body ? JSON.stringify(body) : undefined,
  });

it("serves the API over TLS with the platform's own certificate", async () => {
  expect(proxy.url).toMatch(/^https:/);
  const res = await call("GET", "/v1/mailboxes");
  expect(res.status).toBe(200);
  expect(((await res.json()) as { mailboxes: unknown[] }).mailboxes).toEqual(expect.any(Array));
});

it("passes a send with a 2.7 MB attachment to the platform", async () => {
  const content = randomBytes(2_700_000).toString("base64");
  const res = await call("POST", "/v1/mail/send", {
    from: `hello@${t.domain}`,
    to: "someone@example.net",
    subject: "Report",
    text: "Attached.",
    attachments: [{ filename: "report.bin", content }],
  });
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(JSON.parse(text)).toMatchObject({ id: expect.stringMatching(/^msg_/) });
});

it("hands TRACE on: the platform's 405 with Allow and the JSON error body", async () => {
  // fetch refuses TRACE itself; the dispatcher sends any method.
  const res = await agent.request({ origin: proxy.url, path: "/v1/mailboxes", method: "TRACE", headers: { authorization: `Bearer ${t.key}`, host } });
  expect(res.statusCode).toBe(405);
  expect(String(res.headers.allow)).toContain("GET");
  expect(await res.body.json()).toMatchObject({ code: "method_not_allowed" });
});
