// "subject is required unless template is given" is a rule across fields that TypeSpec cannot
// state; the contract carries it as `x-platform-any-of` and this step makes it a JSON Schema
// `anyOf`, so validators and fuzzers know it too.
type Doc = Record<string, any>;

export function applyAnyOf(doc: Doc): Doc {
  for (const schema of Object.values<Doc>(doc.components?.schemas ?? {})) {
    const alternatives = schema["x-platform-any-of"];
    if (!alternatives) continue;
    delete schema["x-platform-any-of"];
    schema.anyOf = alternatives;
  }
  return doc;
}
