// The behaviour every MailDomainRepository has, on either backend (server/test/backends.ts).
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { CapReachedError } from "../db/capped-insert.ts";
import { SecretBox } from "../secrets/secret-box.ts";
import { newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { MailDomainRepository, NewMailDomain } from "./maildomain-repository.ts";

const pem = "-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n";

export function describeMailDomainRepository(backend: BackendName, make: (c: Connection, secrets: SecretBox) => MailDomainRepository): void {
  describe(`mail domain repository on ${backend}`, () => {
    const store = useStore(backend);
    const secrets = new SecretBox(randomBytes(32));
    let repo: MailDomainRepository;
    let projectId: string;
    let otherProject: string;
    const domain = (name: string, project = projectId): NewMailDomain => ({
      projectId: project, name, dkimSelector: "platform", dkimPrivateKey: pem, dkimPublicKey: "MIIBIjAN", verificationToken: `tok-${name}`,
    });
    beforeAll(async () => {
      repo = make(store.main, secrets);
      projectId = await newProject(store.main);
      otherProject = await newProject(store.main, "other");
    });

    it("creates a domain, reads it back by name within its project, and keeps the DKIM key sealed at rest", async () => {
      const d = (await repo.create(domain("one.test")))!;
      expect(d).toMatchObject({ projectId, name: "one.test", dkimSelector: "platform", dkimPrivateKey: pem, dkimPublicKey: "MIIBIjAN", verificationToken: "tok-one.test" });
      expect(d.id).toMatch(/^dom_/);
      expect(await repo.getByName(projectId, "ONE.test")).toEqual(d);
      expect(await repo.getByName(otherProject, "one.test")).toBeUndefined();
      const [row] = await sql<{ sealed: string }>(store.main, "SELECT dkim_private_key_sealed AS sealed FROM mail_domains WHERE id = ?", [d.id]);
      expect(row.sealed).not.toContain("PRIVATE KEY");
      expect(secrets.open(row.sealed)).toBe(pem);
    });

    it("a name is claimed once per project, by as many projects as want it, each claim pending", async () => {
      const mine = (await repo.create(domain("claimed.test")))!;
      expect(await repo.create(domain("claimed.test"))).toBeUndefined();
      const theirs = (await repo.create(domain("claimed.test", otherProject)))!;
      expect(theirs.id).not.toBe(mine.id);
      for (const claim of [mine, theirs]) expect(claim).toMatchObject({ status: "pending", statusReason: null, verifiedBy: null, nextCheckAt: null });
      expect(await repo.owner("claimed.test")).toBeUndefined();
    });

    it("the first claim to take ownership owns the name and ends the others' open claims; an ended claim never owns", async () => {
      const [a, b, c] = await Promise.all([projectId, otherProject, await newProject(store.main, "third")].map(async (p) => (await repo.create(domain("owned.test", p)))!));
      expect(await repo.takeOwnership(b.id, "dns", "2026-01-02T00:00:00.000Z")).toBe(true);
      expect(await repo.owner("owned.test")).toMatchObject({ id: b.id, status: "verified", verifiedBy: "dns", verifiedAt: "2026-01-02T00:00:00.000Z" });
      for (const other of [a, c]) expect(await repo.getById(other.id)).toMatchObject({ status: "ended", statusReason: expect.stringContaining("another project") });
      expect(await repo.takeOwnership(a.id, "hosting", "2026-01-03T00:00:00.000Z")).toBe(false);
      expect((await repo.owner("owned.test"))!.id).toBe(b.id);

      // The owner loses its proof: another (reopened) claim may take the name now.
      await repo.markUnproven(b.id, "lost", "gone", "2026-01-04T00:00:00.000Z");
      expect(await repo.owner("owned.test")).toBeUndefined();
      expect(await repo.takeOwnership(a.id, "hosting", "2026-01-04T00:00:00.000Z")).toBe(false);
      await repo.markUnproven(a.id, "pending", "connected again", "2026-01-04T00:00:00.000Z", { reopen: true });
      expect(await repo.takeOwnership(a.id, "hosting", "2026-01-04T00:00:00.000Z")).toBe(true);
      expect(await repo.getById(b.id)).toMatchObject({ status: "ended" });
    });

    describe("maildomain.status_changed (decision O7)", () => {
      const seen = new Set<string>();
      interface Emitted { id: string; type: string; data: Record<string, unknown> }
      /** The project's events not returned by an earlier call. */
      const newEvents = async (project: string): Promise<Emitted[]> => {
        const rows = await sql<{ payload: string }>(store.main, "SELECT payload FROM events WHERE project_id = ?", [project]);
        const fresh = rows.map((r) => JSON.parse(r.payload) as Emitted).filter((e) => !seen.has(e.id));
        for (const e of fresh) seen.add(e.id);
        return fresh;
      };
      const expectOne = async (project: string, data: Record<string, unknown>) => {
        const events = await newEvents(project);
        expect(events).toHaveLength(1);
        expect(events[0].type).toBe("maildomain.status_changed");
        expect(events[0].data).toEqual(data);
        return events[0];
      };

      it("every real change emits one event to the claim's project; a check that finds the same state emits none", async () => {
        const [p, q, r] = await Promise.all(["ev-p", "ev-q", "ev-r"].map((n) => newProject(store.main, n)));
        const [a, b, c] = await Promise.all([p, q, r].map(async (project) => (await repo.create(domain("evented.test", project)))!));
        const t1 = "2026-02-01T00:00:00.000Z";
        await repo.markUnproven(c.id, "pending", "the verification record is not published: TXT ...", t1);
        for (const project of [p, q, r]) expect(await newEvents(project)).toEqual([]);

        // b owns the name: its project hears verified, each other project hears of its own claim ending.
        expect(await repo.takeOwnership(b.id, "dns", t1)).toBe(true);
        await expectOne(q, { domainId: b.id, domain: "evented.test", status: "verified", previousStatus: "pending", method: "dns", at: t1 });
        for (const [project, claim] of [[p, a], [r, c]] as const) {
          const ended = await expectOne(project, { domainId: claim.id, domain: "evented.test", status: "ended", previousStatus: "pending", reason: expect.stringContaining("another project"), at: t1 });
          // Nothing of the project that took the name: neither its id nor its claim's.
          expect(JSON.stringify(ended)).not.toContain(q);
          expect(JSON.stringify(ended)).not.toContain(b.id);
          expect(ended.data.reason).toBe((await repo.getById(claim.id))!.statusReason);
        }

        // Re-checks that find the same state: nothing.
        expect(await repo.takeOwnership(b.id, "dns", "2026-02-01T01:00:00.000Z")).toBe(true);
        await repo.markUnproven(a.id, "ended", "another project proved control of this domain first", "2026-02-01T01:00:00.000Z");
        expect(await repo.takeOwnership(a.id, "dns", "2026-02-01T01:00:00.000Z")).toBe(false);
        for (const project of [p, q, r]) expect(await newEvents(project)).toEqual([]);

        const t2 = "2026-02-01T02:00:00.000Z";
        await repo.markUnproven(b.id, "lost", "the verification record is not published: TXT evented.test", t2);
        await expectOne(q, { domainId: b.id, domain: "evented.test", status: "lost", previousStatus: "verified", reason: "the verification record is not published: TXT evented.test", at: t2 });
        await repo.markUnproven(b.id, "lost", "the verification record is not published: TXT evented.test", "2026-02-01T03:00:00.000Z");
        expect(await newEvents(q)).toEqual([]);

        const t3 = "2026-02-01T04:00:00.000Z";
        expect(await repo.takeOwnership(b.id, "hosting", t3)).toBe(true);
        await expectOne(q, { domainId: b.id, domain: "evented.test", status: "verified", previousStatus: "lost", method: "hosting", at: t3 });
        await repo.markUnproven(a.id, "pending", "connected again; checking ownership", t3, { reopen: true });
        await expectOne(p, { domainId: a.id, domain: "evented.test", status: "pending", previousStatus: "ended", reason: "connected again; checking ownership", at: t3 });
        for (const project of [q, r]) expect(await newEvents(project)).toEqual([]);
      });

      it("an ended claim stays ended under a late check's write (no event); only reopening moves it", async () => {
        const [p, q] = await Promise.all(["ev-late-p", "ev-late-q"].map((n) => newProject(store.main, n)));
        const [mine, theirs] = await Promise.all([p, q].map(async (project) => (await repo.create(domain("late.test", project)))!));
        // The hourly check of `mine` read it pending and is looking up DNS while `theirs` takes the name.
        expect(await repo.takeOwnership(theirs.id, "dns", "2026-02-04T00:00:00.000Z")).toBe(true);
        expect((await newEvents(p)).map((e) => e.data.status)).toEqual(["ended"]);
        await repo.markUnproven(mine.id, "pending", "the verification record is not published: TXT late.test", "2026-02-04T00:00:01.000Z");
        expect(await repo.getById(mine.id)).toMatchObject({ status: "ended", statusReason: expect.stringContaining("another project") });
        expect(await newEvents(p)).toEqual([]);
        await repo.markUnproven(mine.id, "pending", "connected again; checking ownership", "2026-02-04T00:00:02.000Z", { reopen: true });
        expect(await repo.getById(mine.id)).toMatchObject({ status: "pending" });
        expect((await newEvents(p)).map((e) => [e.data.previousStatus, e.data.status])).toEqual([["ended", "pending"]]);
      });

      it("a check's late write is dropped when the claim moved since the check read it (no event)", async () => {
        const project = await newProject(store.main, "ev-stale");
        const claim = (await repo.create(domain("stale.test", project)))!;
        await repo.markUnproven(claim.id, "lost", "the verification record is not published: TXT stale.test", "2026-02-05T00:00:00.000Z");
        await newEvents(project);
        // The hourly check read it lost and waits on DNS; a GET meanwhile finds the proof back.
        expect(await repo.takeOwnership(claim.id, "dns", "2026-02-05T00:00:01.000Z")).toBe(true);
        expect((await newEvents(project)).map((e) => e.data.status)).toEqual(["verified"]);
        await repo.markUnproven(claim.id, "lost", "the DNS lookup of stale.test got no answer (ETIMEOUT)", "2026-02-05T00:00:02.000Z", { expected: "lost" });
        expect(await repo.getById(claim.id)).toMatchObject({ status: "verified" });
        expect(await newEvents(project)).toEqual([]);
      });

      it("the same change written at once from two connections is one event", async () => {
        const other = make(await store.connect(), secrets);
        const project = await newProject(store.main, "ev-race");
        const claim = (await repo.create(domain("race-event.test", project)))!;
        expect(await repo.takeOwnership(claim.id, "dns", "2026-02-03T00:00:00.000Z")).toBe(true);
        expect(await newEvents(project)).toHaveLength(1);
        // A GET and the hourly job finding the proof gone at the same moment, on two instances.
        await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? repo : other).markUnproven(claim.id, "lost", "gone", "2026-02-03T01:00:00.000Z")));
        const events = await newEvents(project);
        expect(events.map((e) => [e.data.previousStatus, e.data.status])).toEqual([["verified", "lost"]]);
      });

      it("the event commits with the change or not at all: an emit that fails leaves the status as it was", async () => {
        const project = await newProject(store.main, "ev-atomic");
        const claim = (await repo.create(domain("atomic.test", project)))!;
        // A subscription whose stored URL cannot be parsed makes the outbox throw inside the write.
        await sql(store.main, "INSERT INTO webhooks (id, project_id, url, events, secret_enc, active, created_at) VALUES (?, ?, ?, ?, 'sealed', ?, ?)", [
          "wh_broken_ev", project, "not a url", JSON.stringify(["maildomain.status_changed"]), store.main.backend === "sqlite" ? 1 : true, new Date().toISOString(),
        ]);
        await expect(repo.takeOwnership(claim.id, "dns", "2026-02-02T00:00:00.000Z")).rejects.toThrow();
        await expect(repo.markUnproven(claim.id, "ended", "hosted elsewhere", "2026-02-02T00:00:00.000Z")).rejects.toThrow();
        expect(await repo.getById(claim.id)).toMatchObject({ status: "pending", checkedAt: null });
        expect(await newEvents(project)).toEqual([]);
        await sql(store.main, "DELETE FROM webhooks WHERE id = ?", ["wh_broken_ev"]);
        await repo.markUnproven(claim.id, "ended", "hosted elsewhere", "2026-02-02T00:00:00.000Z");
        expect(await newEvents(project)).toHaveLength(1);
      });
    });

    it("of claims proving control at the same moment from two connections, exactly one owns the name", async () => {
      const other = make(await store.connect(), secrets);
      const projects = await Promise.all(Array.from({ length: 6 }, (_, i) => newProject(store.main, `racer${i}`)));
      const claims = await Promise.all(projects.map(async (p) => (await repo.create(domain("raced.test", p)))!));
      const won = await Promise.all(claims.map((c, i) => (i % 2 ? repo : other).takeOwnership(c.id, "dns", "2026-01-05T00:00:00.000Z")));
      expect(won.filter(Boolean)).toHaveLength(1);
      const [row] = await sql<{ n: number }>(store.main, "SELECT COUNT(*) AS n FROM mail_domains WHERE name = ? AND status = 'verified'", ["raced.test"]);
      expect(Number(row.n)).toBe(1);
    });

    it("keeps the check chain's due time, and lists the open claims whose chain is missing or overdue", async () => {
      const project = await newProject(store.main, "chains");
      const [x, y, z] = await Promise.all(["x", "y", "z"].map(async (n) => (await repo.create(domain(`${n}.chain.test`, project)))!));
      await repo.markUnproven(z.id, "ended", "hosted elsewhere", "2026-01-01T00:00:00.000Z");
      await store.main.store.transaction((tx) => repo.setNextCheck(tx, x.id, 5_000));
      expect((await repo.getById(x.id))!.nextCheckAt).toBe(5_000);
      const open = await repo.unscheduled(4_000);
      expect(open).toContain(y.id);
      expect(open).not.toContain(x.id);
      expect(open).not.toContain(z.id);
      expect(await repo.unscheduled(6_000)).toContain(x.id);
    });

    it("lists the project's domains by name", async () => {
      const project = await newProject(store.main, "lister");
      await repo.create(domain("b-list.test", project));
      await repo.create(domain("a-list.test", project));
      expect((await repo.list(project)).map((d) => d.name)).toEqual(["a-list.test", "b-list.test"]);
    });

    it("a cap holds under concurrent creates from two connections", async () => {
      const project = await newProject(store.main, "capped");
      const other = make(await store.connect(), secrets);
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => (i % 2 ? repo : other).create(domain(`cap${i}.test`, project), 5)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
      expect(results.filter((r) => r.status === "rejected").every((r) => (r as PromiseRejectedResult).reason instanceof CapReachedError)).toBe(true);
      expect(await repo.list(project)).toHaveLength(5);
    });
  });
}
