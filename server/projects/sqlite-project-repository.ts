import type { DatabaseSync } from "node:sqlite";
import { prepare } from "../db/statements.ts";
import { newId, nowIso } from "../ids.ts";
import type { DlpMode, Project, ProjectRepository } from "./project-repository.ts";

interface Row {
  id: string;
  name: string;
  dlp_mode: DlpMode;
  dlp_ocr: number;
  dlp_types: string | null;
  created_at: string;
}

const toProject = (r: Row): Project => ({ id: r.id, name: r.name, dlpMode: r.dlp_mode, dlpOcr: r.dlp_ocr === 1, dlpTypes: r.dlp_types === null ? null : (JSON.parse(r.dlp_types) as string[]), createdAt: r.created_at });

export class SqliteProjectRepository implements ProjectRepository {
  private readonly db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.db = db;
  }

  async create(name: string): Promise<Project> {
    const id = newId("prj");
    prepare(this.db, "INSERT INTO projects (id, name, created_at) VALUES (?, ?, ?)").run(id, name, nowIso());
    return (await this.get(id))!;
  }

  async get(id: string): Promise<Project | undefined> {
    const row = prepare(this.db, "SELECT * FROM projects WHERE id = ?").get(id) as Row | undefined;
    return row && toProject(row);
  }

  async list(): Promise<Project[]> {
    return (prepare(this.db, "SELECT * FROM projects ORDER BY created_at, id").all() as unknown as Row[]).map(toProject);
  }

  async setDlpPolicy(id: string, mode: DlpMode, ocr: boolean): Promise<boolean> {
    const r = prepare(this.db, "UPDATE projects SET dlp_mode = ?, dlp_ocr = ? WHERE id = ?").run(mode, ocr ? 1 : 0, id);
    return Number(r.changes) > 0;
  }

  async setDlpTypes(id: string, types: string[] | null): Promise<boolean> {
    const r = prepare(this.db, "UPDATE projects SET dlp_types = ? WHERE id = ?").run(types === null ? null : JSON.stringify(types), id);
    return Number(r.changes) > 0;
  }
}
