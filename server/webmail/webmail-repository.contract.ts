// The behaviour every WebmailRepository has, on either backend (server/test/backends.ts): links
// redeemed once (also when two connections redeem at once), unexpired only; sessions.
import { beforeAll, describe, expect, it } from "vitest";
import { newMailDomainRow, newProject, sql, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { WebmailRepository } from "./webmail-repository.ts";

export function describeWebmailRepository(backend: BackendName, make: (c: Connection) => WebmailRepository): void {
  describe(`webmail repository on ${backend}`, () => {
    const store = useStore(backend);
    let repo: WebmailRepository;
    let mailboxId: string;
    let n = 0;
    const token = () => `hash${++n}`;
    const now = Date.UTC(2026, 10, 23, 12);
    beforeAll(async () => {
      repo = make(store.main);
      const projectId = await newProject(store.main);
      const domainId = await newMailDomainRow(store.main, projectId, "webmail.test");
      mailboxId = "mbx_webmail";
      await sql(store.main, "INSERT INTO mailboxes (id, project_id, domain_id, kind, email, created_at) VALUES (?, ?, ?, 'mailbox', 'alice@webmail.test', ?)", [mailboxId, projectId, domainId, new Date(now).toISOString()]);
    });

    it("a link is redeemed once, before it expires", async () => {
      const [once, expired] = [token(), token()];
      await repo.createLink(once, mailboxId, now + 60_000);
      await repo.createLink(expired, mailboxId, now + 60_000);
      expect(await repo.redeemLink(once, now)).toEqual({ mailboxId, frameAncestors: [] });
      expect(await repo.redeemLink(once, now)).toBeUndefined();
      expect(await repo.redeemLink(expired, now + 60_000)).toBeUndefined();
      expect(await repo.redeemLink("unknown", now)).toBeUndefined();
    });

    it("of concurrent redemptions through two connections exactly one gets the mailbox", async () => {
      const other = make(await store.connect());
      for (let round = 0; round < 20; round++) {
        const t = token();
        await repo.createLink(t, mailboxId, now + 60_000);
        const results = await Promise.all([repo.redeemLink(t, now), other.redeemLink(t, now), repo.redeemLink(t, now), other.redeemLink(t, now)]);
        expect(results.filter((r) => r?.mailboxId === mailboxId)).toHaveLength(1);
      }
    });

    it("the origins a link allows to frame it pass to its session (decision M11)", async () => {
      const t = token();
      const origins = ["https://app.example.test", "http://localhost:5173"];
      await repo.createLink(t, mailboxId, now + 60_000, origins);
      const grant = await repo.redeemLink(t, now);
      expect(grant).toEqual({ mailboxId, frameAncestors: origins });
      const s = token();
      await repo.createSession(s, grant!, now + 3_600_000);
      expect(await repo.getSession(s, now)).toEqual({ mailboxId, email: "alice@webmail.test", frameAncestors: origins });
    });

    it("a session names its mailbox until it expires or is deleted", async () => {
      const s = token();
      await repo.createSession(s, { mailboxId, frameAncestors: [] }, now + 3_600_000);
      expect(await repo.getSession(s, now)).toEqual({ mailboxId, email: "alice@webmail.test", frameAncestors: [] });
      expect(await repo.getSession(s, now + 3_600_000)).toBeUndefined();
      await repo.deleteSession(s);
      expect(await repo.getSession(s, now)).toBeUndefined();
    });
  });
}
