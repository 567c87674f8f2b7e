// Migration 200 on both stores: the silent suppression rows of earlier releases become list
// entries with the API's reasons (a hard bounce's text kept as its detail), in the order they
// were made, and the rows earlier releases wrote for test recipients are dropped (SU2).
import { describe, expect, it } from "vitest";
import { statementsOf } from "../db/migrate.ts";
import { manualClock } from "../jobs/clock.ts";
import { backends, newProject, sql, useStore } from "../test/backends.ts";
import { suppressionMigrations } from "./migrations.ts";
import { SqlSuppressionRepository } from "./suppression-repository.ts";

const OLD_TABLE = `CREATE TABLE suppressions (
  project_id TEXT NOT NULL REFERENCES projects (id), address TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('hard', 'marketing')), scope TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL, message_id TEXT, created_at BIGINT NOT NULL,
  PRIMARY KEY (project_id, address, kind, scope))`;

for (const backend of backends)
  describe(`suppression migration 200 on ${backend}`, () => {
    const store = useStore(backend);

    it("turns each old row into a list entry and drops test recipients' rows", async () => {
      const s = store.main.store;
      const p = await newProject(store.main, "old");
      // The schema and rows as the release before it left them.
      await s.exec("DROP TABLE suppressions");
      await s.exec(OLD_TABLE);
      const old: [string, string, string, string, string, number][] = [
        ["complained@old.test", "marketing", "shop-a", "complaint", "msg_2", 2000],
        ["gone@old.test", "hard", "", "550 5.1.1 user unknown", "msg_1", 1000],
        ["bounced@sandbox.platform.test", "hard", "", "550 5.1.1 sandbox", "msg_3", 3000],
        ["left@old.test", "marketing", "", "unsubscribe", "msg_4", 4000],
      ];
      for (const [address, kind, scope, reason, messageId, at] of old)
        await s.run("INSERT INTO suppressions (project_id, address, kind, scope, reason, message_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [p, address, kind, scope, reason, messageId, at]);

      await s.transaction((tx) => tx.exec(statementsOf(suppressionMigrations[0], backend)));

      const list = await new SqlSuppressionRepository(s, manualClock()).list(p, { limit: 10 });
      expect(list.map(({ address, reason, stream, scope, messageId, detail, createdAt }) => ({ address, reason, stream, scope, messageId, detail, createdAt }))).toEqual([
        { address: "left@old.test", reason: "unsubscribed", stream: "marketing", scope: "", messageId: "msg_4", detail: null, createdAt: 4000 },
        { address: "complained@old.test", reason: "complained", stream: "marketing", scope: "shop-a", messageId: "msg_2", detail: null, createdAt: 2000 },
        { address: "gone@old.test", reason: "bounced", stream: "all", scope: "", messageId: "msg_1", detail: "550 5.1.1 user unknown", createdAt: 1000 },
      ]);
      // New ids follow the old rows', never reusing one.
      const added = await new SqlSuppressionRepository(s, manualClock()).add(p, { address: "new@old.test", stream: "all", scope: "" });
      expect(added.id).toBeGreaterThan(list[0].id);
      const [{ n }] = await sql<{ n: number | string }>(store.main, "SELECT COUNT(*) AS n FROM suppressions WHERE address LIKE '%sandbox%'");
      expect(Number(n)).toBe(0);
    });
  });
