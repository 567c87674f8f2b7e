// Readers of the reference docs see descriptions, not extensions: this step writes each
// operation's required scope into its description, and the scope catalogue as a table into the
// document's overview, from the same `x-platform-scope(s)` data that tools read.
type Doc = Record<string, any>;

export function documentScopes(doc: Doc): Doc {
  for (const item of Object.values<Doc>(doc.paths ?? {})) {
    for (const op of Object.values<Doc>(item)) {
      const scope = op["x-platform-scope"];
      if (!scope) continue;
      op.description = `${op.description ?? ""}\n\nRequires scope \`${scope}\`.`.trimStart();
    }
  }
  const catalogue: Doc[] | undefined = doc["x-platform-scopes"];
  if (catalogue && doc.info) {
    const rows = catalogue.map(
      (s) => `| \`${s.name}\` | ${s.description} | ${s.routes ? "yes" : "not in 1.0.0"} |`,
    );
    const table = [
      "## Scopes",
      "",
      "| Scope | Allows | Operations |",
      "|---|---|---|",
      ...rows,
    ].join("\n");
    doc.info.description = `${doc.info.description ?? ""}\n\n${table}`.trimStart();
  }
  return doc;
}
