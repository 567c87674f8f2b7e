import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import type { Tx } from "../db/tx.ts";
import type { DlpFinding, DlpMode, DlpRecordContext, DlpType } from "./dlp-port.ts";
import type { DlpEvent, DlpPolicy, DlpRepository } from "./dlp-repository.ts";
import { ALL_TYPES, ATTACHMENT_TYPES, OCR_TYPES } from "./policy-types.ts";

interface PolicyRow {
  dlp_mode: DlpMode;
  dlp_ocr: number;
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

export class SqliteDlpRepository implements DlpRepository {
  private readonly db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.db = db;
  }

  async policy(projectId: string): Promise<DlpPolicy | undefined> {
    const row = prepare(this.db, "SELECT dlp_mode, dlp_ocr, dlp_types FROM projects WHERE id = ?").get(projectId) as PolicyRow | undefined;
    if (!row) return undefined;
    const ocr = row.dlp_ocr === 1;
    return {
      mode: row.dlp_mode,
      types: parseTypes(row.dlp_types),
      ocr: { enabled: ocr, engine: ocr ? "builtin" : "none" },
      attachmentTypes: ocr ? [...ATTACHMENT_TYPES, ...OCR_TYPES] : [...ATTACHMENT_TYPES],
    };
  }

  insert(tx: Tx, projectId: string, id: string, createdAt: string, finding: DlpFinding, c: DlpRecordContext): void {
    if (tx.kind !== "sqlite") throw new Error("the SQLite DLP log was handed a PostgreSQL transaction");
    prepare(tx.db, "INSERT INTO dlp_events (id, project_id, created_at, action, message_id, from_addr, to_addr, finding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
      id, projectId, createdAt, c.action, c.messageId, c.from, c.to, JSON.stringify(finding),
    );
  }

  async list(projectId: string, page: { limit: number; offset: number; since?: string }): Promise<{ events: DlpEvent[]; total: number }> {
    const since = page.since ?? "";
    const total = (prepare(this.db, "SELECT count(*) AS n FROM dlp_events WHERE project_id = ? AND created_at > ?").get(projectId, since) as { n: number }).n;
    const rows = prepare(this.db, "SELECT * FROM dlp_events WHERE project_id = ? AND created_at > ? ORDER BY seq DESC LIMIT ? OFFSET ?").all(projectId, since, page.limit, page.offset) as unknown as EventRow[];
    return {
      total,
      events: rows.map((r) => ({ id: r.id, createdAt: r.created_at, action: r.action, messageId: r.message_id, from: r.from_addr, to: r.to_addr, finding: JSON.parse(r.finding) as DlpFinding })),
    };
  }
}
