import { applyAnyOf } from "./any-of.ts";
import { applyLinks } from "./links.ts";
import { documentScopes } from "./scope-docs.ts";
import { moveWebhooks } from "./webhooks.ts";

/** Every documented step between TypeSpec's output and the published contract, in order. */
export function postprocess(doc: Record<string, any>): Record<string, any> {
  return documentScopes(applyAnyOf(applyLinks(moveWebhooks(doc))));
}
