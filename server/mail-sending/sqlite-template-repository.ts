import type { DatabaseSync } from "node:sqlite";
import { transaction } from "../db/database.ts";
import { prepare } from "../db/statements.ts";
import { newId, nowIso } from "../ids.ts";
import type { TemplateContent, TemplateRepository, TemplateSummary, TemplateVersion } from "./template-repository.ts";
import { toVersion, type VersionRow } from "./template-rows.ts";

const SUMMARY = `SELECT t.id, t.project_id AS projectId, t.name, t.current_version AS currentVersion, t.created_at AS createdAt,
  (SELECT COUNT(*) FROM mail_template_versions v WHERE v.template_id = t.id) AS versions FROM mail_templates t`;

export class SqliteTemplateRepository implements TemplateRepository {
  private readonly db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.db = db;
  }

  private insertVersion(templateId: string, version: number, c: TemplateContent): TemplateVersion {
    const row = prepare(this.db,
      "INSERT INTO mail_template_versions (template_id, version, subject, text_body, html_body, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
    ).get(templateId, version, c.subject, c.text ?? null, c.html ?? null, nowIso()) as unknown as VersionRow;
    return toVersion(row);
  }

  async create(projectId: string, name: string, c: TemplateContent): Promise<TemplateVersion | undefined> {
    return transaction(this.db, () => {
      const id = newId("tpl");
      const r = prepare(this.db, "INSERT INTO mail_templates (id, project_id, name, current_version, created_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT DO NOTHING")
        .run(id, projectId, name, nowIso());
      if (Number(r.changes) === 0) return undefined;
      return this.insertVersion(id, 1, c);
    });
  }

  async addVersion(templateId: string, c: TemplateContent): Promise<TemplateVersion | undefined> {
    return transaction(this.db, () => {
      const next = prepare(this.db, "SELECT MAX(version) + 1 AS v FROM mail_template_versions WHERE template_id = ?").get(templateId) as { v: number | null };
      if (next.v === null) return undefined;
      const v = this.insertVersion(templateId, next.v, c);
      prepare(this.db, "UPDATE mail_templates SET current_version = ? WHERE id = ?").run(next.v, templateId);
      return v;
    });
  }

  async rollback(templateId: string, version: number): Promise<TemplateSummary | undefined> {
    const r = prepare(this.db,
      "UPDATE mail_templates SET current_version = ? WHERE id = ? AND EXISTS (SELECT 1 FROM mail_template_versions WHERE template_id = ? AND version = ?)",
    ).run(version, templateId, templateId, version);
    return Number(r.changes) === 1 ? this.get(templateId) : undefined;
  }

  async list(projectId?: string): Promise<TemplateSummary[]> {
    const rows = projectId
      ? prepare(this.db, `${SUMMARY} WHERE t.project_id = ? ORDER BY t.name`).all(projectId)
      : prepare(this.db, `${SUMMARY} ORDER BY t.project_id, t.name`).all();
    return rows as unknown as TemplateSummary[];
  }

  async get(templateId: string): Promise<TemplateSummary | undefined> {
    return prepare(this.db, `${SUMMARY} WHERE t.id = ?`).get(templateId) as TemplateSummary | undefined;
  }

  async resolve(projectId: string, templateId: string, version?: number): Promise<TemplateVersion | undefined> {
    const row = prepare(this.db,
      `SELECT v.* FROM mail_templates t JOIN mail_template_versions v ON v.template_id = t.id
       WHERE t.id = ? AND t.project_id = ? AND v.version = COALESCE(?, t.current_version)`,
    ).get(templateId, projectId, version ?? null) as VersionRow | undefined;
    return row ? toVersion(row) : undefined;
  }
}
