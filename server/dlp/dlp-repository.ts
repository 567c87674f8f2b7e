// The storage boundary of the DLP area: the policy a project's sends are scanned under, and the
// DLP log the API serves (decisions S2, S3). Written once over Sql (db/sql.ts) for both stores.
import { bool, type Sql } from "../db/sql.ts";
import type { DlpFinding, DlpMode, DlpRecordContext, DlpType } from "./dlp-port.ts";
import { ALL_TYPES, ATTACHMENT_TYPES, OCR_TYPES } from "./policy-types.ts";

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
  /** Joins the caller's transaction `tx`: the log entry commits with the send or not at all. */
  insert(tx: Sql, projectId: string, id: string, createdAt: string, finding: DlpFinding, context: DlpRecordContext): Promise<void>;
  list(projectId: string, page: { limit: number; offset: number; since?: string }): Promise<{ events: DlpEvent[]; total: number }>;
}

interface PolicyRow {
  dlp_mode: DlpMode;
  dlp_ocr: unknown;
  dlp_types: string | null;
}

interface EventRow {
  id: string;
  created_at: string;
  action: "warned" | "blocked";
  message_id: string | null;
  from_addr: string;
  to_addr: string;
  finding: string;
}

/** Stored types, in the canonical order; NULL (never set) means every type. */
export function parseTypes(stored: string | null): DlpType[] {
  if (stored === null) return [...ALL_TYPES];
  const set = new Set(JSON.parse(stored) as string[]);
  return ALL_TYPES.filter((t) => set.has(t));
}

/** The DLP policy and log on either store. */
export class SqlDlpRepository implements DlpRepository {
  private readonly db: Sql;
  constructor(db: Sql) {
    this.db = db;
  }

  async policy(projectId: string): Promise<DlpPolicy | undefined> {
    const row = await this.db.get<PolicyRow>("SELECT dlp_mode, dlp_ocr, dlp_types FROM projects WHERE id = ?", [projectId]);
    if (!row) return undefined;
    const ocr = bool(row.dlp_ocr);
    return {
      mode: row.dlp_mode,
      types: parseTypes(row.dlp_types),
      ocr: { enabled: ocr, engine: ocr ? "builtin" : "none" },
      attachmentTypes: ocr ? [...ATTACHMENT_TYPES, ...OCR_TYPES] : [...ATTACHMENT_TYPES],
    };
  }

  async insert(tx: Sql, projectId: string, id: string, createdAt: string, finding: DlpFinding, c: DlpRecordContext): Promise<void> {
    await tx.run("INSERT INTO dlp_events (id, project_id, created_at, action, message_id, from_addr, to_addr, finding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [
      id, projectId, createdAt, c.action, c.messageId, c.from, c.to, JSON.stringify(finding),
    ]);
  }

  async list(projectId: string, page: { limit: number; offset: number; since?: string }): Promise<{ events: DlpEvent[]; total: number }> {
    const since = page.since ?? "";
    // "Strictly after" compares the ISO strings byte for byte on both stores.
    const after = `created_at > ? ${this.db.dialect.byteOrder}`;
    const { n: total } = (await this.db.get<{ n: number }>(`SELECT count(*) AS n FROM dlp_events WHERE project_id = ? AND ${after}`, [projectId, since]))!;
    const rows = await this.db.all<EventRow>(`SELECT * FROM dlp_events WHERE project_id = ? AND ${after} ORDER BY seq DESC LIMIT ? OFFSET ?`, [projectId, since, page.limit, page.offset]);
    return {
      total: Number(total),
      events: rows.map((r) => ({ id: r.id, createdAt: r.created_at, action: r.action, messageId: r.message_id, from: r.from_addr, to: r.to_addr, finding: JSON.parse(r.finding) as DlpFinding })),
    };
  }
}
