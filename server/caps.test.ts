// Per-project caps (docs/decisions.md L3) under concurrency: from ten below a cap, 30 parallel
// creates through HTTP must leave exactly the cap, the other 20 answering 409 limit_reached.
// The count used to be read in one turn and the insert done in a later one (after hashing a
// password or generating DKIM keys), so 30 parallel creates from 990 mailboxes ended at 1,020.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Api, type Tenant, type TestPlatform } from "./test/harness.ts";

const limits = { mailboxes: 14, groups: 12, membersPerGroup: 11, webhooks: 13, recordsPerZone: 25, mailDomains: 12, certificates: 12, bots: 100 };
let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform({ limits });
});
afterAll(async () => {
  await p?.stop();
});

async function tenant(label: string): Promise<Tenant> {
  return p.newTenant(label);
}

/** Creates sequentially until `count()` is cap - 10, then fires 30 creates at once. */
async function raceFromTenBelow(cap: number, count: () => Promise<number>, create: (i: number) => Promise<{ status: number; body: any }>) {
  let i = 0;
  while ((await count()) < cap - 10) expect((await create(i++)).status).toBe(200);
  expect(await count()).toBe(cap - 10);
  const answers = await Promise.all(Array.from({ length: 30 }, (_, k) => create(1000 + k)));
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  expect(ok).toHaveLength(10);
  for (const r of refused) expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: "limit_reached" });
  expect(await count()).toBe(cap);
}

const length = (api: Api, url: string, field: string) => async () => (await api("GET", url)).body[field].length as number;

describe("caps hold under 30 parallel creates", () => {
  it("mailboxes", async () => {
    const t = await tenant("capmbx");
    await raceFromTenBelow(limits.mailboxes, length(t.api, "/v1/mailboxes", "mailboxes"), (i) =>
      t.api("POST", "/v1/mailboxes", { name: `m${i}`, domain: t.domain, password: "correct horse battery" }));
  });

  it("groups", async () => {
    const t = await tenant("capgrp");
    await raceFromTenBelow(limits.groups, length(t.api, "/v1/groups", "groups"), (i) => t.api("POST", "/v1/groups", { name: `g${i}`, domain: t.domain }));
  });

  it("members of a group", async () => {
    const t = await tenant("capmem");
    const group = (await t.api("POST", "/v1/groups", { name: "team", domain: t.domain })).body.id as string;
    // Mailboxes to add: the mailbox cap (14) is the bound here, 1 member before and 13 racing.
    const names: string[] = [];
    for (let i = 0; i < limits.mailboxes; i++) {
      const r = await t.api("POST", "/v1/mailboxes", { name: `u${i}`, domain: t.domain, password: "correct horse battery" });
      expect(r.status).toBe(200);
      names.push(r.body.email);
    }
    const members = length(t.api, `/v1/groups/${group}/members`, "members");
    await t.api("POST", `/v1/groups/${group}/members`, { mailbox: names[0] });
    expect(await members()).toBe(limits.membersPerGroup - 10);
    const answers = await Promise.all(names.slice(1).map((mailbox) => t.api("POST", `/v1/groups/${group}/members`, { mailbox })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    for (const r of answers.filter((a) => a.status !== 200)) expect(r.body.code).toBe("limit_reached");
    expect(await members()).toBe(limits.membersPerGroup);
  });

  it("webhooks", async () => {
    const t = await tenant("caphook");
    await raceFromTenBelow(limits.webhooks, length(t.api, "/v1/webhooks", "webhooks"), (i) =>
      t.api("POST", "/v1/webhooks", { url: `https://hooks.example.org/${i}` }));
  });

  it("records per zone", async () => {
    const t = await tenant("caprec");
    await raceFromTenBelow(limits.recordsPerZone, length(t.api, `/v1/dns/${t.domain}/records`, "records"), (i) =>
      t.api("POST", `/v1/dns/${t.domain}/records`, { type: "TXT", name: `n${i}`, data: `v${i}` }));
  });

  it("mail domains", async () => {
    const t = await tenant("capdom");
    await raceFromTenBelow(limits.mailDomains, length(t.api, "/v1/maildomains", "domains"), (i) =>
      t.api("POST", "/v1/maildomains", { name: `d${i}.capdom.example` }));
  });

  it("certificates", async () => {
    const t = await tenant("capcrt");
    // No list route: count the project's rows (the cap is what the insert transaction enforces).
    const count = async () => (p.db.prepare("SELECT COUNT(*) AS n FROM certificates c JOIN zones z ON z.project_id = c.project_id WHERE z.name = ?").get(t.domain) as { n: number }).n;
    await raceFromTenBelow(limits.certificates, count, (i) => t.api("POST", "/v1/certs/issue", { domains: [`c${i}.${t.domain}`] }));
  });
});
