// Projects: the console creates them, the server reads their policy.
import { bool, type Sql } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";

export type DlpMode = "off" | "warn" | "block";

export interface Project {
  id: string;
  name: string;
  dlpMode: DlpMode;
  dlpOcr: boolean;
  /** Types scanned; null means every type (server/dlp). */
  dlpTypes: string[] | null;
  createdAt: string;
}

export interface ProjectRepository {
  create(name: string): Promise<Project>;
  get(id: string): Promise<Project | undefined>;
  list(): Promise<Project[]>;
  /** False when the project does not exist. */
  setDlpPolicy(id: string, mode: DlpMode, ocr: boolean): Promise<boolean>;
  /** Null: every type. */
  setDlpTypes(id: string, types: string[] | null): Promise<boolean>;
}

interface Row {
  id: string;
  name: string;
  dlp_mode: DlpMode;
  dlp_ocr: unknown;
  dlp_types: string | null;
  created_at: string;
}

const toProject = (r: Row): Project => ({ id: r.id, name: r.name, dlpMode: r.dlp_mode, dlpOcr: bool(r.dlp_ocr), dlpTypes: r.dlp_types === null ? null : (JSON.parse(r.dlp_types) as string[]), createdAt: r.created_at });

/** Projects on either store (db/sql.ts). */
export class SqlProjectRepository implements ProjectRepository {
  private readonly db: Sql;
  constructor(db: Sql) {
    this.db = db;
  }

  async create(name: string): Promise<Project> {
    const row = await this.db.get<Row>("INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?) RETURNING *", [newId("prj"), name, nowIso()]);
    return toProject(row!);
  }

  async get(id: string): Promise<Project | undefined> {
    const row = await this.db.get<Row>("SELECT * FROM projects WHERE id = ?", [id]);
    return row && toProject(row);
  }

  async list(): Promise<Project[]> {
    return (await this.db.all<Row>("SELECT * FROM projects ORDER BY created_at, id")).map(toProject);
  }

  async setDlpPolicy(id: string, mode: DlpMode, ocr: boolean): Promise<boolean> {
    return (await this.db.run("UPDATE projects SET dlp_mode = ?, dlp_ocr = ? WHERE id = ?", [mode, ocr, id])).changes > 0;
  }

  async setDlpTypes(id: string, types: string[] | null): Promise<boolean> {
    return (await this.db.run("UPDATE projects SET dlp_types = ? WHERE id = ?", [types === null ? null : JSON.stringify(types), id])).changes > 0;
  }
}
