// TypeSpec 1.16 cannot emit the OpenAPI 3.1 `webhooks` section, so spec/events/ models each event
// as an operation under the marker route below. This step moves those path items into `webhooks`
// (3.1) or the `x-webhooks` extension that Redocly and older tools read (3.0).
export const WEBHOOK_MARKER = "/x-webhooks/";

type Doc = Record<string, any>;

export function moveWebhooks(doc: Doc): Doc {
  const webhooks: Doc = {};
  for (const [path, item] of Object.entries<Doc>(doc.paths ?? {})) {
    if (!path.startsWith(WEBHOOK_MARKER)) continue;
    const event = path.slice(WEBHOOK_MARKER.length);
    for (const op of Object.values<Doc>(item)) {
      // Deliveries are authenticated by their signature, not by the API's bearer scheme.
      delete op.security;
      op.tags = ["Events"];
    }
    webhooks[event] = item;
    delete doc.paths[path];
  }
  const key = String(doc.openapi).startsWith("3.0") ? "x-webhooks" : "webhooks";
  if (Object.keys(webhooks).length > 0) doc[key] = webhooks;
  return doc;
}
