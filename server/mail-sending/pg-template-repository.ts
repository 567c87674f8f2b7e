// Project mail templates on PostgreSQL (decision P1): sqlite-template-repository.ts's behaviour,
// checked by the shared suite in template-repository.contract.ts. A new version takes the
// template's row lock first, so two instances adding versions at once number them 2 and 3,
// never 2 and 2.
import { rows, type Pg } from "../db/postgres/pg.ts";
import { newId, nowIso } from "../ids.ts";
import type pg from "pg";
import type { TemplateContent, TemplateRepository, TemplateSummary, TemplateVersion } from "./template-repository.ts";
import { toVersion, type VersionRow } from "./template-rows.ts";

const SUMMARY = `SELECT t.id, t.project_id AS "projectId", t.name, t.current_version AS "currentVersion", t.created_at AS "createdAt",
  (SELECT COUNT(*)::int FROM mail_template_versions v WHERE v.template_id = t.id) AS versions FROM mail_templates t`;

/** INTEGER's range: a version outside it names no version (PostgreSQL would refuse the parameter). */
const isVersion = (v: number) => Number.isInteger(v) && Math.abs(v) <= 2 ** 31 - 1;

export class PgTemplateRepository implements TemplateRepository {
  private readonly db: Pg;
  constructor(db: Pg) {
    this.db = db;
  }

  private async insertVersion(c: pg.PoolClient, templateId: string, version: number, content: TemplateContent): Promise<TemplateVersion> {
    const [row] = await rows<VersionRow>(c,
      "INSERT INTO mail_template_versions (template_id, version, subject, text_body, html_body, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *",
      [templateId, version, content.subject, content.text ?? null, content.html ?? null, nowIso()]);
    return toVersion(row);
  }

  create(projectId: string, name: string, content: TemplateContent): Promise<TemplateVersion | undefined> {
    return this.db.tx(async (c) => {
      const id = newId("tpl");
      const r = await c.query("INSERT INTO mail_templates (id, project_id, name, current_version, created_at) VALUES ($1, $2, $3, 1, $4) ON CONFLICT DO NOTHING", [id, projectId, name, nowIso()]);
      if (r.rowCount === 0) return undefined;
      return this.insertVersion(c, id, 1, content);
    });
  }

  addVersion(templateId: string, content: TemplateContent): Promise<TemplateVersion | undefined> {
    return this.db.tx(async (c) => {
      const [locked] = await rows<{ id: string }>(c, "SELECT id FROM mail_templates WHERE id = $1 FOR UPDATE", [templateId]);
      if (!locked) return undefined;
      const [next] = await rows<{ v: number | null }>(c, "SELECT MAX(version) + 1 AS v FROM mail_template_versions WHERE template_id = $1", [templateId]);
      if (next.v === null) return undefined;
      const v = await this.insertVersion(c, templateId, next.v, content);
      await c.query("UPDATE mail_templates SET current_version = $1 WHERE id = $2", [next.v, templateId]);
      return v;
    });
  }

  async rollback(templateId: string, version: number): Promise<TemplateSummary | undefined> {
    if (!isVersion(version)) return undefined;
    const r = await this.db.pool.query(
      "UPDATE mail_templates SET current_version = $1 WHERE id = $2 AND EXISTS (SELECT 1 FROM mail_template_versions WHERE template_id = $2 AND version = $1)",
      [version, templateId]);
    return r.rowCount === 1 ? this.get(templateId) : undefined;
  }

  async list(projectId?: string): Promise<TemplateSummary[]> {
    // COLLATE "C": names sort by code point, as SQLite's BINARY collation does.
    return projectId
      ? this.db.query<TemplateSummary>(`${SUMMARY} WHERE t.project_id = $1 ORDER BY t.name COLLATE "C"`, [projectId])
      : this.db.query<TemplateSummary>(`${SUMMARY} ORDER BY t.project_id COLLATE "C", t.name COLLATE "C"`);
  }

  async get(templateId: string): Promise<TemplateSummary | undefined> {
    return (await this.db.query<TemplateSummary>(`${SUMMARY} WHERE t.id = $1`, [templateId]))[0];
  }

  async resolve(projectId: string, templateId: string, version?: number): Promise<TemplateVersion | undefined> {
    if (version !== undefined && !isVersion(version)) return undefined;
    const [row] = await this.db.query<VersionRow>(
      `SELECT v.* FROM mail_templates t JOIN mail_template_versions v ON v.template_id = t.id
       WHERE t.id = $1 AND t.project_id = $2 AND v.version = COALESCE($3::int, t.current_version)`,
      [templateId, projectId, version ?? null]);
    return row && toVersion(row);
  }
}
