// The request rules every route shares (docs/decisions.md E3, E4, E9), through a real server:
// unknown methods on known paths, bodies that are not JSON, and keys aiming at Object.prototype.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

let p: TestPlatform;
let t: Tenant;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("rules");
});
afterAll(async () => {
  await p?.stop();
});

/** One raw HTTP/1.1 exchange, for methods fetch refuses to send (TRACE) or Node's parser refuses (BREW). */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const { port } = new URL(p.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => {
      const lines = Object.entries({ host: "127.0.0.1", authorization: `Bearer ${t.key}`, connection: "close", ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`);
    });
    let text = "";
    socket.on("data", (d) => (text += d.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head, body] = text.split("\r\n\r\n");
      const [status, ...rest] = head.split("\r\n");
      const parsed = Object.fromEntries(rest.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      // Chunked bodies carry a size line first; the JSON starts at the first brace.
      const json = body.slice(body.indexOf("{"), body.lastIndexOf("}") + 1);
      resolve({ status: Number(status.split(" ")[1]), headers: parsed, body: json ? JSON.parse(json) : undefined });
    });
  });
}

describe("E4: a method not documented on a known path is 405 with Allow", () => {
  it.each(["TRACE", "SEARCH", "PROPFIND", "PUT", "PATCH", "QUERY", "MKCOL", "BREW", "X-CUSTOM"])("%s /v1/groups", async (method) => {
    const res = await raw(method, "/v1/groups?x=1");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD, POST");
    expect(res.body).toEqual({ error: `${method} is not allowed here; use GET, HEAD, POST`, code: "method_not_allowed" });
  });

  it.each([
    ["TRACE", "/v1/groups/grp_1/members/mbx_1", "DELETE"],
    ["BREW", "/v1/dns/example.test/records/rec_1", "DELETE"],
    ["POST", "/v1/mailboxes/mbx_1", "DELETE"],
  ])("%s %s names the path's methods", async (method, path, allow) => {
    const res = await raw(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe(allow);
  });

  it.each(["TRACE", "BREW"])("%s on an unknown path is 404 not_found", async (method) => {
    const res = await raw(method, "/v1/nothing");
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });

  it("the pages around the API are known paths too", async () => {
    const res = await raw("DELETE", "/openapi.json");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD");
  });
});

describe("E3: every body that is not application/json is 415", () => {
  const body = JSON.stringify({ name: "media", domain: "rules.test" });
  it.each([
    ["text/plain", body],
    ["text/plain; charset=utf-8", body],
    ["application/x-www-form-urlencoded", "name=media&domain=rules.test"],
    ["multipart/form-data; boundary=x", "--x\r\n\r\n--x--"],
    ["application/xml", "<group/>"],
    ["application/jsonx", body],
    ["application/merge-patch+json", body],
  ])("%s", async (type, text) => {
    const res = await t.api("POST", "/v1/groups", text, { "content-type": type });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: expect.stringContaining("application/json"), code: "unsupported_media_type" });
  });

  it("a body without a Content-Type", async () => {
    const res = await fetch(`${p.url}/v1/groups`, { method: "POST", headers: { authorization: `Bearer ${t.key}` }, body: new Blob([body]) });
    expect(res.status).toBe(415);
    expect((await res.json()).code).toBe("unsupported_media_type");
  });

  it("changes nothing", async () => {
    expect((await t.api("GET", "/v1/groups")).body.groups).toEqual([]);
  });

  it("application/json with a charset is accepted; malformed JSON is 400 saying so", async () => {
    expect((await t.api("POST", "/v1/groups", body, { "content-type": "Application/JSON; charset=utf-8" })).status).toBe(200);
    const bad = await t.api("POST", "/v1/groups", "{\"name\":", {});
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("invalid_request");
    expect(bad.body.error).toMatch(/^body is not valid JSON: /);
  });

  it("without a key it is still 401 first", async () => {
    const res = await t.api("POST", "/v1/groups", "x", { "content-type": "text/plain", authorization: "" });
    expect(res.status).toBe(401);
  });
});

describe("E9: keys that reach for Object.prototype are dropped like unknown fields", () => {
  it.each([
    ["__proto__", `{"__proto__": {"polluted": "yes"}, "name": "proto1", "domain": "rules.test"}`],
    ["escaped __proto__", `{"\\u005f_proto__": {"polluted": "yes"}, "name": "proto2", "domain": "rules.test"}`],
    ["constructor.prototype", `{"constructor": {"prototype": {"polluted": "yes"}}, "name": "proto3", "domain": "rules.test"}`],
    ["nested", `{"name": "proto4", "domain": "rules.test", "description": "d", "x": {"__proto__": {"polluted": "yes"}}}`],
  ])("%s: the create succeeds and no prototype is polluted", async (_name, text) => {
    const res = await t.api("POST", "/v1/groups", text);
    expect(res.status).toBe(200);
    expect(res.body.email).toMatch(/^proto\d@rules\.test$/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });
});

describe("U+0000 in a request (decision E10)", () => {
  it.each([
    ["a body string", "POST", "/v1/mail/send", { from: "a@rules.test", to: "b@example.com", subject: "nul\u0000x", text: "t" }, "body.subject"],
    ["a free-form key", "POST", "/v1/mail/send", { from: "a@rules.test", to: "b@example.com", subject: "s", text: "t", vars: { "k\u0000": "v" } }, "body.vars.k\u0000"],
    ["a query parameter", "GET", "/v1/mail/messages?campaign=a%00b", undefined, "query.campaign"],
  ])("%s is refused with 400, naming the field", async (_what, method, path, body, field) => {
    const res = await t.api(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ code: "invalid_request", details: [{ path: field, message: expect.stringContaining("NUL character") }] });
  });
});
