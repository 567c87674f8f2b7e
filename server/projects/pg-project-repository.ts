// Projects on PostgreSQL (decision P1): the same behaviour as sqlite-project-repository.ts,
// checked by the shared suite in project-repository.contract.ts.
import { rows, type Pg } from "../db/postgres/pg.ts";
import { newId, nowIso } from "../ids.ts";
import type { DlpMode, Project, ProjectRepository } from "./project-repository.ts";

interface Row {
  id: string;
  name: string;
  dlp_mode: DlpMode;
  dlp_ocr: boolean;
  dlp_types: string | null;
  created_at: string;
}

const toProject = (r: Row): Project => ({ id: r.id, name: r.name, dlpMode: r.dlp_mode, dlpOcr: r.dlp_ocr, dlpTypes: r.dlp_types === null ? null : (JSON.parse(r.dlp_types) as string[]), createdAt: r.created_at });

export class PgProjectRepository implements ProjectRepository {
  private readonly db: Pg;
  constructor(db: Pg) {
    this.db = db;
  }

  async create(name: string): Promise<Project> {
    const [row] = await this.db.query<Row>("INSERT INTO projects (id, name, created_at) VALUES ($1, $2, $3) RETURNING *", [newId("prj"), name, nowIso()]);
    return toProject(row);
  }

  async get(id: string): Promise<Project | undefined> {
    const [row] = await this.db.query<Row>("SELECT * FROM projects WHERE id = $1", [id]);
    return row && toProject(row);
  }

  async list(): Promise<Project[]> {
    return (await rows<Row>(this.db.pool, "SELECT * FROM projects ORDER BY created_at, id")).map(toProject);
  }

  async setDlpPolicy(id: string, mode: DlpMode, ocr: boolean): Promise<boolean> {
    const r = await this.db.pool.query("UPDATE projects SET dlp_mode = $1, dlp_ocr = $2 WHERE id = $3", [mode, ocr, id]);
    return (r.rowCount ?? 0) > 0;
  }

  async setDlpTypes(id: string, types: string[] | null): Promise<boolean> {
    const r = await this.db.pool.query("UPDATE projects SET dlp_types = $1 WHERE id = $2", [types === null ? null : JSON.stringify(types), id]);
    return (r.rowCount ?? 0) > 0;
  }
}
