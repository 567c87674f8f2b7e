// The DLP policy and log on PostgreSQL (decision P1): sqlite-dlp-repository.ts's behaviour,
// checked by the shared suite in dlp-repository.contract.ts. Findings are written on the send's
// own transaction client (`tx`), so they commit with the send or not at all.
import type { Pg } from "../db/postgres/pg.ts";
import type { Tx } from "../db/tx.ts";
import type { DlpFinding, DlpMode, DlpRecordContext } from "./dlp-port.ts";
import type { DlpEvent, DlpPolicy, DlpRepository } from "./dlp-repository.ts";
import { ATTACHMENT_TYPES, OCR_TYPES } from "./policy-types.ts";
import { parseTypes } from "./sqlite-dlp-repository.ts";

interface EventRow {
  id: string;
  created_at: string;
  action: "warned" | "blocked";
  message_id: string | null;
  from_addr: string;
  to_addr: string;
  finding: string;
}

export class PgDlpRepository implements DlpRepository {
  private readonly db: Pg;
  constructor(db: Pg) {
    this.db = db;
  }

  async policy(projectId: string): Promise<DlpPolicy | undefined> {
    // Named (planned once per pooled session): every send reads the policy before its scan.
    const { rows: [row] } = await this.db.pool.query<{ dlp_mode: DlpMode; dlp_ocr: boolean; dlp_types: string | null }>({
      name: "dlp-policy",
      text: "SELECT dlp_mode, dlp_ocr, dlp_types FROM projects WHERE id = $1",
      values: [projectId],
    });
    if (!row) return undefined;
    const ocr = row.dlp_ocr;
    return {
      mode: row.dlp_mode,
      types: parseTypes(row.dlp_types),
      ocr: { enabled: ocr, engine: ocr ? "builtin" : "none" },
      attachmentTypes: ocr ? [...ATTACHMENT_TYPES, ...OCR_TYPES] : [...ATTACHMENT_TYPES],
    };
  }

  async insert(tx: Tx, projectId: string, id: string, createdAt: string, finding: DlpFinding, c: DlpRecordContext): Promise<void> {
    if (tx.kind !== "postgres") throw new Error("the PostgreSQL DLP log was handed a SQLite transaction");
    await tx.c.query("INSERT INTO dlp_events (id, project_id, created_at, action, message_id, from_addr, to_addr, finding) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", [
      id, projectId, createdAt, c.action, c.messageId, c.from, c.to, JSON.stringify(finding),
    ]);
  }

  async list(projectId: string, page: { limit: number; offset: number; since?: string }): Promise<{ events: DlpEvent[]; total: number }> {
    const since = page.since ?? "";
    // COLLATE "C": "strictly after" compares the ISO strings byte for byte, as SQLite does.
    const [{ n: total }] = await this.db.query<{ n: number }>(`SELECT count(*) AS n FROM dlp_events WHERE project_id = $1 AND created_at > $2 COLLATE "C"`, [projectId, since]);
    const rows = await this.db.query<EventRow>(`SELECT * FROM dlp_events WHERE project_id = $1 AND created_at > $2 COLLATE "C" ORDER BY seq DESC LIMIT $3 OFFSET $4`, [projectId, since, page.limit, page.offset]);
    return {
      total,
      events: rows.map((r) => ({ id: r.id, createdAt: r.created_at, action: r.action, messageId: r.message_id, from: r.from_addr, to: r.to_addr, finding: JSON.parse(r.finding) as DlpFinding })),
    };
  }
}
