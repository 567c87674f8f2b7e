// Seed §2 and issue 10: a hard bounce suppresses the address project-wide in both streams; a
// complaint or unsubscribe suppresses it in the marketing stream only, for the message's scope
// owner (an empty scope is the whole project, so it also covers every scope). The transactional
// stream ignores complaints and unsubscribes.
import type { Sql } from "../db/sql.ts";
import type { MailStream } from "./message-repository.ts";

export async function isSuppressed(db: Sql, projectId: string, address: string, stream: MailStream, scope: string): Promise<boolean> {
  const row = await db.get(
    `SELECT 1 FROM suppressions WHERE project_id = ? AND address = ?
       AND (kind = 'hard' OR (? = 'marketing' AND kind = 'marketing' AND scope IN ('', ?))) LIMIT 1`,
    [projectId, address.toLowerCase(), stream, scope],
  );
  return row !== undefined;
}

export async function suppress(db: Sql, entry: { projectId: string; address: string; kind: "hard" | "marketing"; scope: string; reason: string; messageId: string; at: number }): Promise<void> {
  await db.run(
    `INSERT INTO suppressions (project_id, address, kind, scope, reason, message_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, address, kind, scope) DO NOTHING`,
    [entry.projectId, entry.address.toLowerCase(), entry.kind, entry.kind === "hard" ? "" : entry.scope, entry.reason, entry.messageId, entry.at],
  );
}
