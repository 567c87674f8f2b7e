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

    it("a name is connected by one project only", async () => {
      expect(await repo.create(domain("taken.test"))).toBeDefined();
      expect(await repo.create(domain("taken.test", otherProject))).toBeUndefined();
    });

    it("lists the project's domains by name", async () => {
      await repo.create(domain("b-list.test", otherProject));
      await repo.create(domain("a-list.test", otherProject));
      expect((await repo.list(otherProject)).map((d) => d.name)).toEqual(["a-list.test", "b-list.test"]);
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
