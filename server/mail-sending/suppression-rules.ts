// Seed §2 and issue 10: a hard bounce suppresses the address project-wide in both streams; a
// complaint or unsubscribe suppresses it in the marketing stream only, for the message's scope
// owner (an empty scope is the whole project, so it also covers every scope). The transactional
// stream ignores complaints and unsubscribes. The rows are the suppression list users see and
// change (server/suppressions, decision SU1): this check and that list read one table.
import type { Sql } from "../db/sql.ts";
import type { MailStream } from "./message-repository.ts";
import { isSandboxAddress } from "./sandbox/sandbox-recipients.ts";

export type SuppressionKind = "hard" | "marketing";
export type SuppressionReason = "bounced" | "complained" | "unsubscribed" | "manual";

export async function isSuppressed(db: Sql, projectId: string, address: string, stream: MailStream, scope: string): Promise<boolean> {
  const row = await db.get(
    `SELECT 1 FROM suppressions WHERE project_id = ? AND address = ?
       AND (kind = 'hard' OR (? = 'marketing' AND kind = 'marketing' AND scope IN ('', ?))) LIMIT 1`,
    [projectId, address.toLowerCase(), stream, scope],
  );
  return row !== undefined;
}

export interface SuppressionEntry {
  projectId: string;
  address: string;
  kind: SuppressionKind;
  scope: string;
  reason: SuppressionReason;
  /** The message whose bounce, complaint or unsubscribe caused it; null for a manual block. */
  messageId: string | null;
  /** What the receiving server said, for a bounce. */
  detail?: string | null;
  at: number;
}

/**
 * Records a suppression unless the same one (address, kind, scope) is there already. Test
 * recipients are never suppressed (decision SU2): their behaviour is fixed by their local part,
 * and a suppression would only hide it. Answers whether a row was written.
 */
export async function suppress(db: Sql, entry: SuppressionEntry): Promise<boolean> {
  if (isSandboxAddress(entry.address)) return false;
  const r = await db.run(
    `INSERT INTO suppressions (project_id, address, kind, scope, reason, message_id, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, address, kind, scope) DO NOTHING`,
    [entry.projectId, entry.address.toLowerCase(), entry.kind, entry.kind === "hard" ? "" : entry.scope, entry.reason, entry.messageId, entry.detail ?? null, entry.at],
  );
  return r.changes > 0;
}
