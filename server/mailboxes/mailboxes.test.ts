// Mailboxes and groups through HTTP on a real server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { verifyPassword } from "./password.ts";

let p: TestPlatform;
let t: Tenant;
beforeAll(async () => {
  p = await startTestPlatform();
  t = await p.newTenant("mbx");
});
afterAll(() => p.stop());

describe("mailboxes", () => {
  it("creates, lists, shares and deletes a mailbox", async () => {
    const created = await t.api("POST", "/v1/mailboxes", { name: "alice", domain: t.domain, password: "correct horse" });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ email: `alice@${t.domain}`, id: expect.stringMatching(/^mbx_/) });
    const id = created.body.id;

    let list = await t.api("GET", "/v1/mailboxes");
    expect(list.body.mailboxes).toContainEqual({ id, email: `alice@${t.domain}`, type: "personal", usedBytes: 0 });

    expect((await t.api("POST", `/v1/mailboxes/${id}/shared`, { shared: true })).body).toEqual({ id, shared: true });
    list = await t.api("GET", "/v1/mailboxes");
    expect(list.body.mailboxes.find((m: { id: string }) => m.id === id).type).toBe("shared");
    await t.api("POST", `/v1/mailboxes/${id}/shared`, { shared: false });
    list = await t.api("GET", "/v1/mailboxes");
    expect(list.body.mailboxes.find((m: { id: string }) => m.id === id).type).toBe("personal");

    expect((await t.api("DELETE", `/v1/mailboxes/${id}`)).body).toEqual({ deleted: true });
    expect((await t.api("DELETE", `/v1/mailboxes/${id}`)).status).toBe(404);
  });

  it("stores the password only as a scrypt hash", async () => {
    const created = await t.api("POST", "/v1/mailboxes", { name: "hashme", domain: t.domain, password: "s3cret-password" });
    const row = p.db.prepare("SELECT password_hash FROM mailboxes WHERE id = ?").get(created.body.id) as { password_hash: string };
    expect(row.password_hash).toMatch(/^scrypt\$/);
    expect(row.password_hash).not.toContain("s3cret-password");
    expect(await verifyPassword("s3cret-password", row.password_hash)).toBe(true);
    expect(await verifyPassword("wrong-password", row.password_hash)).toBe(false);
  });

  it.each([
    ["a name too short", { name: "a", password: "correct horse" }, "body.name"],
    ["a name with capitals", { name: "Alice", password: "correct horse" }, "body.name"],
    ["a name of 41 characters", { name: "a".repeat(41), password: "correct horse" }, "body.name"],
    ["a password of 7 characters", { name: "bob", password: "1234567" }, "body.password"],
    ["no password", { name: "bob" }, "body.password"],
  ])("refuses %s with 400 and details", async (_n, input, path) => {
    const res = await t.api("POST", "/v1/mailboxes", { domain: t.domain, ...input });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it("refuses a domain that is not a mail domain of the project", async () => {
    const res = await t.api("POST", "/v1/mailboxes", { name: "carol", domain: "elsewhere.test", password: "correct horse" });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: "body.domain", message: expect.any(String) }]);
  });

  it("refuses an address that is taken, by a mailbox or a group", async () => {
    await t.api("POST", "/v1/mailboxes", { name: "dup", domain: t.domain, password: "correct horse" });
    expect((await t.api("POST", "/v1/mailboxes", { name: "dup", domain: t.domain, password: "correct horse" })).body.code).toBe("conflict");
    expect((await t.api("POST", "/v1/groups", { name: "dup", domain: t.domain })).status).toBe(409);
  });
});

describe("groups", () => {
  it("creates a group, adds and removes members, lists and deletes it", async () => {
    const mbx = await t.api("POST", "/v1/mailboxes", { name: "member1", domain: t.domain, password: "correct horse" });
    const g = await t.api("POST", "/v1/groups", { name: "team", domain: t.domain, description: "the team" });
    expect(g.body).toEqual({ id: expect.stringMatching(/^grp_/), email: `team@${t.domain}` });

    const added = await t.api("POST", `/v1/groups/${g.body.id}/members`, { mailbox: `member1@${t.domain}` });
    expect(added.body).toEqual({ ok: true, member: { id: mbx.body.id, email: `member1@${t.domain}` } });
    expect((await t.api("POST", `/v1/groups/${g.body.id}/members`, { mailbox: `member1@${t.domain}` })).status).toBe(409);
    expect((await t.api("POST", `/v1/groups/${g.body.id}/members`, { mailbox: `nobody@${t.domain}` })).status).toBe(400);

    expect((await t.api("GET", `/v1/groups/${g.body.id}/members`)).body).toEqual({ members: [{ id: mbx.body.id, email: `member1@${t.domain}` }] });
    expect((await t.api("GET", "/v1/groups")).body.groups).toContainEqual({ id: g.body.id, email: `team@${t.domain}`, membersCount: 1 });
    const listed = (await t.api("GET", "/v1/mailboxes")).body.mailboxes;
    expect(listed).toContainEqual({ id: g.body.id, email: `team@${t.domain}`, type: "group", membersCount: 1 });

    expect((await t.api("DELETE", `/v1/groups/${g.body.id}/members/${mbx.body.id}`)).body).toEqual({ ok: true });
    expect((await t.api("DELETE", `/v1/groups/${g.body.id}/members/${mbx.body.id}`)).status).toBe(404);
    expect((await t.api("DELETE", `/v1/groups/${g.body.id}`)).body).toEqual({ deleted: true });
    expect((await t.api("GET", `/v1/groups/${g.body.id}/members`)).status).toBe(404);
  });

  it("a group id is not a mailbox id", async () => {
    const g = await t.api("POST", "/v1/groups", { name: "other", domain: t.domain });
    expect((await t.api("DELETE", `/v1/mailboxes/${g.body.id}`)).status).toBe(404);
  });
});
