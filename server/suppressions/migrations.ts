// Schema of the suppression list (issue 41 item 1, decision SU1). The table was created with
// outgoing mail (mail-sending/migrations.ts) as a silent list; to become a resource users list,
// page and lift, it is rebuilt once with an id that only grows (the list's `before` cursor stays
// valid when rows are removed), the reason as one of the API's values and the receiving server's
// text kept apart in `detail`. Test recipients are never suppressed (SU2): rows an earlier
// release wrote for them are dropped here.
import type { Migration } from "../db/migration.ts";

export const suppressionMigrations: Migration[] = [
  {
    version: 200,
    name: "suppressions become a resource: id, reason, detail (issue 41)",
    sql: `
      CREATE TABLE suppression_list (
        id SERIAL_KEY_ONCE,
        project_id TEXT NOT NULL REFERENCES projects (id),
        address TEXT NOT NULL,
        -- 'hard': both streams, whole project (scope ''); 'marketing': marketing stream of one scope owner.
        kind TEXT NOT NULL CHECK (kind IN ('hard', 'marketing')),
        scope TEXT NOT NULL DEFAULT '',
        reason TEXT NOT NULL CHECK (reason IN ('bounced', 'complained', 'unsubscribed', 'manual')),
        message_id TEXT,
        detail TEXT,
        created_at BIGINT NOT NULL,
        UNIQUE (project_id, address, kind, scope)
      );
      INSERT INTO suppression_list (project_id, address, kind, scope, reason, message_id, detail, created_at)
        SELECT project_id, address, kind, scope,
               CASE WHEN kind = 'hard' THEN 'bounced' WHEN reason = 'unsubscribe' THEN 'unsubscribed' ELSE 'complained' END,
               message_id, CASE WHEN kind = 'hard' THEN reason END, created_at
          FROM suppressions
         WHERE address NOT LIKE '%@sandbox.platform.test'
         ORDER BY created_at, address;
      DROP TABLE suppressions;
      ALTER TABLE suppression_list RENAME TO suppressions;
      CREATE INDEX suppressions_newest ON suppressions (project_id, id);`,
  },
];
