// `{{name}}` placeholders (batch vars, template vars). In HTML the value is escaped, so a
// recipient's name cannot inject markup; a placeholder without a value becomes empty.
export type Vars = Record<string, string | number | boolean>;

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function fill(text: string | undefined, vars: Vars | undefined, html = false): string | undefined {
  if (text === undefined || !text.includes("{{")) return text;
  return text.replace(PLACEHOLDER, (_, name: string) => {
    const value = vars && Object.hasOwn(vars, name) ? String(vars[name]) : "";
    return html ? escapeHtml(value) : value;
  });
}
