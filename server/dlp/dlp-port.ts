// The seam between the send path (server/mail-sending) and the DLP scanner (server/dlp). The send
// path calls `inspect` before anything is stored; on `block` it refuses with 422 and stores no
// message; otherwise it calls `record` inside the send transaction, so the DLP log entries and
// their `mail.dlp` events commit with the message (or, when blocked, in a transaction of their own).
import type { Sql } from "../db/sql.ts";

export type DlpMode = "off" | "warn" | "block";
export type DlpType = "card" | "track" | "iban" | "swift" | "fin" | "passport" | "voen" | "secret" | "confidential" | "encrypted";

export interface OutgoingAttachment {
  filename: string;
  contentType?: string;
  content: Buffer;
}

/** One message as the scanner sees it (after template and batch-variable substitution). */
export interface OutgoingContent {
  subject?: string;
  text?: string;
  html?: string;
  /** Custom header fields (the request's `headers`): the recipient's client can show them. */
  headers?: Record<string, string>;
  attachments: OutgoingAttachment[];
}

export interface DlpFinding {
  type: DlpType;
  masked: string;
  where: string;
  full: boolean;
  mass: boolean;
  /** How many times this value occurs at this place (one finding per distinct value and place). */
  count?: number;
  /** Batch sends: the 0-based number of the affected message (decision S10). */
  message?: number;
}

export interface DlpVerdict {
  mode: DlpMode;
  findings: DlpFinding[];
  /** Human-readable lines for the response's `warnings` (empty when there are no findings). */
  warnings: string[];
}

export interface DlpRecordContext {
  action: "warned" | "blocked";
  /** Null when blocked: no message was stored. */
  messageId: string | null;
  from: string;
  to: string;
}

export interface DlpInspector {
  /** Scans one message under the project's policy. Mode `off` returns no findings without scanning. */
  inspect(projectId: string, content: OutgoingContent): Promise<DlpVerdict>;
  /**
   * Scans the messages of one batch send side by side (as many at once as the scanner has
   * threads) under one time budget for the batch; verdicts in the order of `contents`.
   */
  inspectBatch(projectId: string, contents: OutgoingContent[]): Promise<DlpVerdict[]>;
  /**
   * Writes the findings to the DLP log and emits one `mail.dlp` per finding, all or none, in the
   * caller's transaction `tx` (the send's, or backend.transact's for a blocked send).
   */
  record(tx: Sql, projectId: string, findings: DlpFinding[], context: DlpRecordContext): Promise<void>;
  /** Ends the scanning threads; the platform calls it when it stops, after the last request. */
  close(): Promise<void>;
}

/** Until server/dlp provides the scanner: every policy reads as off. */
export const noInspection: DlpInspector = {
  inspect: async () => ({ mode: "off", findings: [], warnings: [] }),
  inspectBatch: async (_projectId, contents) => contents.map(() => ({ mode: "off", findings: [], warnings: [] })),
  record: async () => {},
  close: async () => {},
};
