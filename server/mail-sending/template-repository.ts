// Project mail templates (decision S4): versioned; `current` is the version sends use unless a
// request names one, and rolling back moves `current` to an earlier version.

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
