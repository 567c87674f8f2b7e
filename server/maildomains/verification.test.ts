// Who owns a mail domain (decisions O1-O4) on its own: what a claim's proof is (its zone hosted
// here, its token in DNS, neither, or no answer) and where each check leaves the claim and the
// name's owner. Real repositories on SQLite; DNS answers from a table (the outside world).
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { backendOn } from "../db/backend.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { SqlDnsRecordRepository } from "../dns/zone-repository.ts";
import { systemClock } from "../jobs/clock.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { newProject, useStore } from "../test/backends.ts";
import { SqlMailDomainRepository, type ClaimStatus, type MailDomainRecord } from "./maildomain-repository.ts";
import { lookupError, tableResolver, type ResolverTable } from "./test/table-resolver.ts";
import { findProof, hostedElsewhereReason, verificationRecord, verifyClaim, zoneOfAnotherProject, type Proof } from "./verification.ts";

const store = useStore("sqlite");
const NOW = Date.parse("2026-11-29T10:00:00.000Z");
let mailDomains: SqlMailDomainRepository;
let zones: SqlDnsRecordRepository;
let a: string;
let b: string;
let c: string;
let n = 0;

beforeAll(async () => {
  const db = store.main.backend === "sqlite" ? store.main.db : undefined;
  mailDomains = new SqlMailDomainRepository(backendOn(storeOnSqlite(db!), systemClock), new SecretBox(randomBytes(32)));
  zones = new SqlDnsRecordRepository(store.main.store, () => true);
  [a, b, c] = [await newProject(store.main, "a"), await newProject(store.main, "b"), await newProject(store.main, "c")];
});

/** A fresh name per case, so cases never see each other's claims or zones. */
const fresh = () => `d${++n}.example`;
async function claim(projectId: string, name: string, status?: ClaimStatus): Promise<MailDomainRecord> {
  const d = (await mailDomains.create({ projectId, name, dkimSelector: "s", dkimPrivateKey: "k", dkimPublicKey: "p", verificationToken: `tok-${projectId}-${name}` }))!;
  if (status === "verified" || status === "lost") expect(await mailDomains.takeOwnership(d.id, "dns", "2026-01-01T00:00:00.000Z")).toBe(true);
  if (status === "lost" || status === "ended") await mailDomains.markUnproven(d.id, status, "set up", "2026-01-01T00:00:00.000Z");
  return (await mailDomains.getById(d.id))!;
}
const token = (d: MailDomainRecord) => `platform-verification=${d.verificationToken}`;
const deps = (table: ResolverTable) => ({ mailDomains, zones, resolver: tableResolver(table), now: () => NOW });

describe("verificationRecord and hostedElsewhereReason", () => {
  it("name the record to publish and the zone that blocks a claim", () => {
    expect(verificationRecord({ name: "shop.example", verificationToken: "abc" })).toBe('TXT shop.example "platform-verification=abc"');
    expect(hostedElsewhereReason("mail.shop.example", "shop.example")).toBe(
      "mail.shop.example lies in the zone shop.example, which another project hosts here; only that project can connect it",
    );
  });
});

describe("zoneOfAnotherProject", () => {
  it("answers the most specific zone of another project containing the name, and nothing for one's own or an unbound zone", async () => {
    const name = fresh();
    await zones.createZone({ name, projectId: a });
    await zones.createZone({ name: `sub.${name}`, projectId: b });
    await zones.createZone({ name: `free.${name}`, projectId: null });
    expect(await zoneOfAnotherProject(zones, b, `x.${name}`)).toBe(name);
    expect(await zoneOfAnotherProject(zones, a, `x.${name}`)).toBeUndefined();
    expect(await zoneOfAnotherProject(zones, a, `x.sub.${name}`)).toBe(`sub.${name}`);
    expect(await zoneOfAnotherProject(zones, b, `x.sub.${name}`)).toBeUndefined();
    expect(await zoneOfAnotherProject(zones, b, `x.free.${name}`)).toBeUndefined();
    expect(await zoneOfAnotherProject(zones, a, fresh())).toBeUndefined();
  });
});

describe("findProof", () => {
  type Case = [string, (name: string, d: MailDomainRecord) => Promise<ResolverTable> | ResolverTable, (name: string, d: MailDomainRecord) => Proof];
  const absent = (d: MailDomainRecord): Proof => ({ kind: "absent", reason: `the verification record is not published: ${verificationRecord(d)}` });
  it.each<Case>([
    ["its zone hosted by its project (DNS not asked)", async (name) => (await zones.createZone({ name, projectId: a }), { txt: { [name]: lookupError("ETIMEOUT") } }), () => ({ kind: "proven", method: "hosting" })],
    ["a parent zone hosted by its project", async (name) => (await zones.createZone({ name: name.slice(name.indexOf(".") + 1) + ".zone", projectId: a }), {}), (_n, d) => absent(d)],
    ["its token in DNS", (name, d) => ({ txt: { [name]: ["v=spf1 -all", token(d)] } }), () => ({ kind: "proven", method: "dns" })],
    ["its token in an unbound zone's DNS", async (name, d) => (await zones.createZone({ name, projectId: null }), { txt: { [name]: [token(d)] } }), () => ({ kind: "proven", method: "dns" })],
    ["another claim's token only", (name) => ({ txt: { [name]: ["platform-verification=tok-other"] } }), (_n, d) => absent(d)],
    ["its token inside a longer record", (name, d) => ({ txt: { [name]: [`x${token(d)}`] } }), (_n, d) => absent(d)],
    ["its token at another name", (name, d) => ({ txt: { [`www.${name}`]: [token(d)] } }), (_n, d) => absent(d)],
    ["no TXT at all", () => ({}), (_n, d) => absent(d)],
    ["a lookup that timed out", (name) => ({ txt: { [name]: lookupError("ETIMEOUT") } }),
      (name, d) => ({ kind: "unknown", reason: `the DNS lookup of ${name} got no answer (ETIMEOUT); the verification record to publish: ${verificationRecord(d)}` })],
    ["a lookup that failed without a code", (name) => ({ txt: { [name]: new Error("boom") } }),
      (name, d) => ({ kind: "unknown", reason: `the DNS lookup of ${name} got no answer (error); the verification record to publish: ${verificationRecord(d)}` })],
    ["its zone hosted by another project (even with its token in DNS)", async (name, d) => (await zones.createZone({ name, projectId: b }), { txt: { [name]: [token(d)] } }),
      (name) => ({ kind: "hosted-elsewhere", reason: hostedElsewhereReason(name, name) })],
  ])("%s", async (_case, answers, want) => {
    const name = fresh();
    const d = await claim(a, name);
    const table = await answers(name, d);
    expect(await findProof({ zones, resolver: tableResolver(table) }, d)).toEqual(want(name, d));
  });
});

describe("verifyClaim", () => {
  const at = new Date(NOW).toISOString();

  it("leaves an ended claim alone", async () => {
    const name = fresh();
    const d = await claim(a, name, "ended");
    expect(await verifyClaim(deps({ txt: { [name]: [token(d)] } }), d)).toEqual({ claim: d, found: "skipped" });
    expect(await mailDomains.getById(d.id)).toEqual(d);
  });

  // [case, status before, what DNS shows (the claim's token or not, or no answer), status after, reason]
  it.each<[string, ClaimStatus, "token" | "nothing" | "timeout", ClaimStatus, "absent" | "unknown" | null]>([
    ["a pending claim proves control", "pending", "token", "verified", null],
    ["a lost claim proves control again", "lost", "token", "verified", null],
    ["an owner keeps its name", "verified", "token", "verified", null],
    ["a pending claim without its record stays pending", "pending", "nothing", "pending", "absent"],
    ["an owner whose record is gone is lost", "verified", "nothing", "lost", "absent"],
    ["a lost claim stays lost", "lost", "nothing", "lost", "absent"],
    ["a pending claim without an answer stays pending, saying why", "pending", "timeout", "pending", "unknown"],
    ["a lost claim without an answer stays lost, saying why", "lost", "timeout", "lost", "unknown"],
    ["an owner without an answer keeps its name", "verified", "timeout", "verified", null],
  ])("%s", async (_case, before, dns, after, reason) => {
    const name = fresh();
    const d = await claim(a, name, before);
    const table: ResolverTable = dns === "token" ? { txt: { [name]: [token(d)] } } : dns === "timeout" ? { txt: { [name]: lookupError("ETIMEOUT") } } : {};
    const found = dns === "token" ? "proven" : dns === "timeout" ? "unknown" : "absent";
    const result = await verifyClaim(deps(table), d);
    expect(result.found).toBe(found);
    expect(result.claim).toEqual(await mailDomains.getById(d.id));
    expect(result.claim.status).toBe(after);
    const unchanged = before === "verified" && dns === "timeout";
    const proof = await findProof({ zones, resolver: tableResolver(table) }, d);
    if (reason) expect(proof.kind).toBe(reason);
    expect(result.claim.statusReason).toBe(after === "verified" ? null : (proof as { reason: string }).reason);
    if (after === "verified") expect(result.claim.verifiedBy).toBe("dns");
    expect(result.claim.checkedAt).toBe(unchanged ? d.checkedAt : at);
  });

  it("a claim whose name lies in another project's zone ends", async () => {
    const name = fresh();
    const d = await claim(a, name, "verified");
    await zones.createZone({ name, projectId: b });
    const result = await verifyClaim(deps({}), d);
    expect(result).toMatchObject({ found: "hosted-elsewhere", claim: { status: "ended", statusReason: hostedElsewhereReason(name, name), checkedAt: at } });
  });

  it("a claim proving control while the owner's proof holds waits, pending or lost, and the owner keeps the name", async () => {
    for (const before of ["pending", "lost"] as const) {
      const name = fresh();
      const owner = await claim(a, name, "verified");
      const d = await claim(b, name);
      if (before === "lost") await mailDomains.markUnproven(d.id, "lost", "set up", at, { reopen: true });
      const waiting = (await mailDomains.getById(d.id))!;
      const result = await verifyClaim(deps({ txt: { [name]: [token(owner), token(d)] } }), waiting);
      expect(result).toMatchObject({
        found: "proven",
        claim: { status: before, statusReason: "another project owns this domain and its proof still holds; this claim takes over if that proof goes", checkedAt: at },
      });
      expect((await mailDomains.owner(name))?.id).toBe(owner.id);
    }
  });

  it("an owner whose lookup fails keeps the name against a claim that proves control", async () => {
    const name = fresh();
    const owner = await claim(a, name, "verified");
    const d = await claim(b, `x.${name}`);
    // The owner's name answers nothing; the claim is of another name, so the owner is not asked.
    expect((await verifyClaim(deps({ txt: { [`x.${name}`]: [token(d)] } }), d)).claim.status).toBe("verified");
    const rival = await claim(c, name);
    const result = await verifyClaim(deps({ txt: { [name]: lookupError("ETIMEOUT") } }), rival);
    expect(result).toMatchObject({ found: "unknown", claim: { status: "pending" } });
    expect((await mailDomains.owner(name))?.id).toBe(owner.id);
  });

  // The owner is found lost first, then ends with the other open claims when the claim takes the name.
  it("hands the name over when the owner's record is gone: the owner's claim ends, the claim is verified", async () => {
    const name = fresh();
    const owner = await claim(a, name, "verified");
    const d = await claim(b, name);
    const result = await verifyClaim(deps({ txt: { [name]: [token(d)] } }), d);
    expect(result).toMatchObject({ found: "proven", claim: { status: "verified", verifiedBy: "dns", statusReason: null } });
    expect(await mailDomains.getById(owner.id)).toMatchObject({ status: "ended", statusReason: "another project proved control of this domain first", checkedAt: at });
  });

  it("hands the name over to the project that hosts its zone: the owner's claim ends", async () => {
    const name = fresh();
    const owner = await claim(a, name, "verified");
    const d = await claim(b, name);
    await zones.createZone({ name, projectId: b });
    const result = await verifyClaim(deps({ txt: { [name]: [token(owner)] } }), d);
    expect(result).toMatchObject({ found: "proven", claim: { status: "verified", verifiedBy: "hosting" } });
    expect(await mailDomains.getById(owner.id)).toMatchObject({ status: "ended", statusReason: hostedElsewhereReason(name, name) });
  });

  // A check reads a claim, asks DNS, then writes: another check may have moved the claim meanwhile.
  // Each write is conditional on the status the check read, so a stale check changes nothing.
  it.each<[string, ClaimStatus, ClaimStatus, "token" | "nothing" | "timeout" | "zone" | "owner"]>([
    ["a failed lookup", "pending", "verified", "timeout"],
    ["a missing record", "pending", "verified", "nothing"],
    ["another project's zone", "pending", "verified", "zone"],
    ["a proof while another owns the name", "lost", "pending", "owner"],
  ])("a stale check after %s changes nothing", async (_case, read, now, dns) => {
    const name = fresh();
    if (dns === "owner") await claim(c, name, "verified");
    const d = await claim(a, name, now);
    const stale = { ...d, status: read };
    if (dns === "zone") await zones.createZone({ name, projectId: b });
    const table: ResolverTable = dns === "timeout" ? { txt: { [name]: lookupError("ETIMEOUT") } } : dns === "token" || dns === "owner" ? { txt: { [name]: [token(d), `platform-verification=tok-${c}-${name}`] } } : {};
    await verifyClaim(deps(table), stale);
    expect(await mailDomains.getById(d.id)).toEqual(d);
  });

  it("a stale check of a claim that ended meanwhile, with no owner, leaves it ended", async () => {
    const name = fresh();
    const d = await claim(a, name, "ended");
    const result = await verifyClaim(deps({ txt: { [name]: [token(d)] } }), { ...d, status: "pending" });
    expect(result).toEqual({ found: "proven", claim: d });
  });

  it("a name without an owner is taken by the first claim that proves control, the others end", async () => {
    const name = fresh();
    const first = await claim(a, name);
    const second = await claim(b, name);
    expect((await verifyClaim(deps({ txt: { [name]: [token(first), token(second)] } }), first)).claim.status).toBe("verified");
    expect((await mailDomains.getById(second.id))?.status).toBe("ended");
  });
});
