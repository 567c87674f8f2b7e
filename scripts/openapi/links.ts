// OpenAPI links tell a fuzzer (and a reader) which operation consumes what another produced.
// TypeSpec has no decorator for them, so the contract states them as `x-platform-links` on the
// producing operation and this step turns them into real `links` of its 200 response.
type Doc = Record<string, any>;

export function applyLinks(doc: Doc): Doc {
  const known = new Set<string>();
  for (const item of Object.values<Doc>(doc.paths ?? {}))
    for (const op of Object.values<Doc>(item)) if (op.operationId) known.add(op.operationId);

  for (const item of Object.values<Doc>(doc.paths ?? {})) {
    for (const op of Object.values<Doc>(item)) {
      const links = op["x-platform-links"];
      if (!links) continue;
      delete op["x-platform-links"];
      for (const [name, link] of Object.entries<Doc>(links)) {
        if (!known.has(link.operationId)) {
          throw new Error(
            `${op.operationId}: link ${name} names unknown operation ${link.operationId}`,
          );
        }
      }
      const ok = op.responses?.["200"];
      if (!ok) throw new Error(`${op.operationId}: links need a 200 response`);
      ok.links = links;
    }
  }
  return doc;
}
