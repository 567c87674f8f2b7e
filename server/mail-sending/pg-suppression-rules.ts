// suppression-rules.ts on PostgreSQL: the same rules, on the caller's transaction client.
import type { Queryable } from "../db/postgres/pg.ts";
import type { MailStream } from "./message-repository.ts";

export async function pgIsSuppressed(c: Queryable, projectId: string, address: string, stream: MailStream, scope: string): Promise<boolean> {
  // Named (planned once per pooled session): every accepted send asks it for each recipient.
  const r = await c.query({
    name: "suppression-check",
    text: `SELECT 1 FROM suppressions WHERE project_id = $1 AND address = $2
       AND (kind = 'hard' OR ($3 = 'marketing' AND kind = 'marketing' AND scope IN ('', $4))) LIMIT 1`,
    values: [projectId, address.toLowerCase(), stream, scope],
  });
  return (r.rowCount ?? 0) > 0;
}

export async function pgSuppress(c: Queryable, entry: { projectId: string; address: string; kind: "hard" | "marketing"; scope: string; reason: string; messageId: string; at: number }): Promise<void> {
  await c.query(
    `INSERT INTO suppressions (project_id, address, kind, scope, reason, message_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (project_id, address, kind, scope) DO NOTHING`,
    [entry.projectId, entry.address.toLowerCase(), entry.kind, entry.kind === "hard" ? "" : entry.scope, entry.reason, entry.messageId, entry.at],
  );
}
