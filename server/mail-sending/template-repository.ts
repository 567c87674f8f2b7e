// Project mail templates (decision S4): versioned; `current` is the version sends use unless a
// request names one, and rolling back moves `current` to an earlier version. Written once over the
// store (db/sql.ts): a new version locks the template's row first, so two instances adding
// versions at once number them 2 and 3, never 2 and 2.
import type { Sql, Store } from "../db/sql.ts";
import { newId, nowIso } from "../ids.ts";

export interface TemplateVersion {
  templateId: string;
  version: number;
  subject: string;
  text?: string;
  html?: string;
  createdAt: string;
}

export interface TemplateSummary {
  id: string;
  projectId: string;
  name: string;
  currentVersion: number;
  versions: number;
  createdAt: string;
}

export interface TemplateContent {
  subject: string;
  text?: string;
  html?: string;
}

export interface TemplateRepository {
  /** Undefined when the project already has a template of that name. */
  create(projectId: string, name: string, content: TemplateContent): Promise<TemplateVersion | undefined>;
  /** A new version, which becomes current. */
  addVersion(templateId: string, content: TemplateContent): Promise<TemplateVersion | undefined>;
  /** Undefined when the template or version does not exist. */
  rollback(templateId: string, version: number): Promise<TemplateSummary | undefined>;
  list(projectId?: string): Promise<TemplateSummary[]>;
  get(templateId: string): Promise<TemplateSummary | undefined>;
  /** The version a send uses: the given one or the current one, only within the project. */
  resolve(projectId: string, templateId: string, version?: number): Promise<TemplateVersion | undefined>;
}

interface VersionRow {
  template_id: string;
  version: number;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  created_at: string;
}

const toVersion = (r: VersionRow): TemplateVersion => ({
  templateId: r.template_id, version: r.version, subject: r.subject, text: r.text_body ?? undefined, html: r.html_body ?? undefined, createdAt: r.created_at,
});

const SUMMARY = `SELECT t.id, t.project_id AS "projectId", t.name, t.current_version AS "currentVersion", t.created_at AS "createdAt",
  (SELECT COUNT(*) FROM mail_template_versions v WHERE v.template_id = t.id) AS versions FROM mail_templates t`;

/** INTEGER's range: a version outside it names no version (PostgreSQL would refuse the parameter). */
const isVersion = (v: number) => Number.isInteger(v) && Math.abs(v) <= 2 ** 31 - 1;

/**
 * Names in code point order, as SQLite's BINARY collation and PostgreSQL's "C" compare them (UTF-8
 * bytes): the database's own collation may be a locale's, and SQLite knows no "C".
 */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

export class SqlTemplateRepository implements TemplateRepository {
  private readonly store: Store;
  constructor(store: Store) {
    this.store = store;
  }

  private async insertVersion(tx: Sql, templateId: string, version: number, c: TemplateContent): Promise<TemplateVersion> {
    const row = await tx.get<VersionRow>(
      "INSERT INTO mail_template_versions (template_id, version, subject, text_body, html_body, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *",
      [templateId, version, c.subject, c.text ?? null, c.html ?? null, nowIso()]);
    return toVersion(row!);
  }

  create(projectId: string, name: string, c: TemplateContent): Promise<TemplateVersion | undefined> {
    return this.store.transaction(async (tx) => {
      const id = newId("tpl");
      const r = await tx.run("INSERT INTO mail_templates (id, project_id, name, current_version, created_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT DO NOTHING", [id, projectId, name, nowIso()]);
      if (r.changes === 0) return undefined;
      return this.insertVersion(tx, id, 1, c);
    });
  }

  addVersion(templateId: string, c: TemplateContent): Promise<TemplateVersion | undefined> {
    return this.store.transaction(async (tx) => {
      const locked = await tx.get(`SELECT id FROM mail_templates WHERE id = ? ${tx.dialect.forUpdate}`, [templateId]);
      if (!locked) return undefined;
      const next = await tx.get<{ v: number | null }>("SELECT MAX(version) + 1 AS v FROM mail_template_versions WHERE template_id = ?", [templateId]);
      if (next?.v == null) return undefined;
      const v = await this.insertVersion(tx, templateId, next.v, c);
      await tx.run("UPDATE mail_templates SET current_version = ? WHERE id = ?", [next.v, templateId]);
      return v;
    });
  }

  async rollback(templateId: string, version: number): Promise<TemplateSummary | undefined> {
    if (!isVersion(version)) return undefined;
    const r = await this.store.run(
      "UPDATE mail_templates SET current_version = ? WHERE id = ? AND EXISTS (SELECT 1 FROM mail_template_versions WHERE template_id = ? AND version = ?)",
      [version, templateId, templateId, version]);
    return r.changes === 1 ? this.get(templateId) : undefined;
  }

  async list(projectId?: string): Promise<TemplateSummary[]> {
    const rows = projectId
      ? await this.store.all<TemplateSummary>(`${SUMMARY} WHERE t.project_id = ?`, [projectId])
      : await this.store.all<TemplateSummary>(SUMMARY);
    return rows.sort((a, b) => byCodePoint(a.projectId, b.projectId) || byCodePoint(a.name, b.name));
  }

  get(templateId: string): Promise<TemplateSummary | undefined> {
    return this.store.get<TemplateSummary>(`${SUMMARY} WHERE t.id = ?`, [templateId]);
  }

  async resolve(projectId: string, templateId: string, version?: number): Promise<TemplateVersion | undefined> {
    if (version !== undefined && !isVersion(version)) return undefined;
    const row = await this.store.get<VersionRow>(
      `SELECT v.* FROM mail_templates t JOIN mail_template_versions v ON v.template_id = t.id
       WHERE t.id = ? AND t.project_id = ? AND v.version = COALESCE(CAST(? AS INTEGER), t.current_version)`,
      [templateId, projectId, version ?? null]);
    return row && toVersion(row);
  }
}
