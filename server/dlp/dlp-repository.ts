// The storage boundary of the DLP area: the policy a project's sends are scanned under, and the
// DLP log the API serves (decisions S2, S3).
import type { Tx } from "../db/tx.ts";
import type { DlpFinding, DlpMode, DlpRecordContext, DlpType } from "./dlp-port.ts";

export interface DlpPolicy {
  mode: DlpMode;
  types: DlpType[];
  ocr: { enabled: boolean; engine: "builtin" | "none" };
  attachmentTypes: string[];
}

export interface DlpEvent {
  id: string;
  createdAt: string;
  action: "warned" | "blocked";
  messageId: string | null;
  from: string;
  to: string;
  finding: DlpFinding;
}

export interface DlpRepository {
  /** Undefined for an unknown project. */
  policy(projectId: string): Promise<DlpPolicy | undefined>;
  /** Joins the caller's transaction (server/db/tx.ts): synchronous on SQLite, awaited on PostgreSQL. */
  insert(tx: Tx, projectId: string, id: string, createdAt: string, finding: DlpFinding, context: DlpRecordContext): void | Promise<void>;
  list(projectId: string, page: { limit: number; offset: number; since?: string }): Promise<{ events: DlpEvent[]; total: number }>;
}
