// Seed §2 and issue 10: a hard bounce suppresses the address project-wide in both streams; a
// complaint or unsubscribe suppresses it in the marketing stream only, for the message's scope
// owner (an empty scope is the whole project, so it also covers every scope). The transactional
// stream ignores complaints and unsubscribes.
import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import type { MailStream } from "./message-repository.ts";

export function isSuppressed(db: DatabaseSync, projectId: string, address: string, stream: MailStream, scope: string): boolean {
  const row = prepare(db,
    `SELECT 1 FROM suppressions WHERE project_id = ? AND address = ?
       AND (kind = 'hard' OR (? = 'marketing' AND kind = 'marketing' AND scope IN ('', ?))) LIMIT 1`,
  ).get(projectId, address.toLowerCase(), stream, scope);
  return row !== undefined;
}

export function suppress(db: DatabaseSync, entry: { projectId: string; address: string; kind: "hard" | "marketing"; scope: string; reason: string; messageId: string; at: number }): void {
  prepare(db,
    `INSERT INTO suppressions (project_id, address, kind, scope, reason, message_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, address, kind, scope) DO NOTHING`,
  ).run(entry.projectId, entry.address.toLowerCase(), entry.kind, entry.kind === "hard" ? "" : entry.scope, entry.reason, entry.messageId, entry.at);
}
