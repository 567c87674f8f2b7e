// A template version's row as both repositories read it (sqlite-, pg-template-repository.ts).
import type { TemplateVersion } from "./template-repository.ts";

export interface VersionRow {
  template_id: string;
  version: number;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  created_at: string;
}

export const toVersion = (r: VersionRow): TemplateVersion => ({
  templateId: r.template_id, version: r.version, subject: r.subject, text: r.text_body ?? undefined, html: r.html_body ?? undefined, createdAt: r.created_at,
});
