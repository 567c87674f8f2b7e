// `platform-admin templates ...`: project mail templates (decision S4), versioned. Updating adds a
// version that becomes current; rolling back makes an earlier version current again. Sends use
// the current version unless a request names one.
import { readFileSync } from "node:fs";
import type { TemplateRepository, TemplateVersion } from "./template-repository.ts";

export const templateUsage = `  templates create --project <id> --name <name> --subject <text> [--text <text> | --text-file <path>] [--html <html> | --html-file <path>]
  templates update <template id> [--subject <text>] [--text ... | --text-file ...] [--html ... | --html-file ...]
  templates rollback <template id> --version <n>
  templates list [--project <id>]
  templates show <template id> [--version <n>]`;

export interface TemplateFlags {
  project?: string;
  name?: string;
  subject?: string;
  text?: string;
  html?: string;
  "text-file"?: string;
  "html-file"?: string;
  version?: string;
}

/** Throws `fail(message)` for bad input (the console's UsageError). */
export async function runTemplateCommand(
  templates: TemplateRepository,
  action: string,
  args: string[],
  v: TemplateFlags,
  fail: (message: string) => Error,
  projectExists: (id: string) => Promise<boolean>,
): Promise<string> {
  const body = (flag: "text" | "html") => {
    const file = v[`${flag}-file`];
    if (file !== undefined && v[flag] !== undefined) throw fail(`give --${flag} or --${flag}-file, not both`);
    try {
      return file !== undefined ? readFileSync(file, "utf8") : v[flag];
    } catch (error) {
      throw fail(`cannot read ${file}: ${(error as Error).message}`);
    }
  };
  const version = () => {
    const n = Number(v.version);
    if (v.version === undefined || !Number.isInteger(n) || n < 1) throw fail("--version must be a positive integer");
    return n;
  };
  const describe = (t: TemplateVersion) => `template ${t.templateId} version ${t.version} (current)`;

  switch (action) {
    case "create": {
      if (!v.project || !(await projectExists(v.project))) throw fail("--project <id> of an existing project is required");
      if (!v.name || !/^[A-Za-z0-9._-]{1,64}$/.test(v.name)) throw fail("--name is required: 1 to 64 of A-Z a-z 0-9 . _ -");
      if (!v.subject || /[\r\n]/.test(v.subject)) throw fail("--subject is required, on one line");
      const t = await templates.create(v.project, v.name, { subject: v.subject, text: body("text"), html: body("html") });
      if (!t) throw fail(`the project already has a template named ${v.name}`);
      return `created ${describe(t)}`;
    }
    case "update": {
      const current = args[0] ? await templates.get(args[0]) : undefined;
      if (!current) throw fail(`no template ${args[0] ?? ""}; see templates list`);
      const base = (await templates.resolve(current.projectId, current.id))!;
      if (v.subject !== undefined && (!v.subject || /[\r\n]/.test(v.subject))) throw fail("--subject must be one non-empty line");
      const t = await templates.addVersion(current.id, { subject: v.subject ?? base.subject, text: body("text") ?? base.text, html: body("html") ?? base.html });
      return `updated: ${describe(t!)}`;
    }
    case "rollback": {
      const t = args[0] ? await templates.rollback(args[0], version()) : undefined;
      if (!t) throw fail(`no version ${v.version} of template ${args[0] ?? ""}`);
      return `template ${t.id} now uses version ${t.currentVersion}`;
    }
    case "list": {
      const rows = await templates.list(v.project);
      if (rows.length === 0) return "(none)";
      return rows.map((t) => `${t.id}  ${t.projectId}  ${t.name}  v${t.currentVersion} of ${t.versions}`).join("\n");
    }
    case "show": {
      const t = args[0] ? await templates.get(args[0]) : undefined;
      const shown = t && (await templates.resolve(t.projectId, t.id, v.version === undefined ? undefined : version()));
      if (!t || !shown) throw fail(`no template ${args[0] ?? ""}${v.version ? ` version ${v.version}` : ""}`);
      return [`${t.id} ${t.name} version ${shown.version}${shown.version === t.currentVersion ? " (current)" : ""}`, `Subject: ${shown.subject}`, "", shown.text ?? "", shown.html ? `\n${shown.html}` : ""].join("\n").trimEnd();
    }
    default:
      throw fail(`unknown command: templates ${action}`);
  }
}
