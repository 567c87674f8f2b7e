// The compatibility gate's engine: the current contract against a released one, every change
// named by its rule (rules.ts) with a JSON pointer into the current document's paths.
import { apiCompare, type Diff } from "api-smart-diff";
import { rules, type RuleContext, type Verdict } from "./rules.ts";

type Doc = Record<string, any>;

export interface Finding {
  rule: string;
  verdict: Verdict;
  /** RFC 6901 pointer to the change, in the document's paths (webhooks as `/x-webhooks/<event>`). */
  pointer: string;
  /** `METHOD /path` of the affected operation, or `webhook <event>`. */
  operation: string;
  says: string;
  description: string;
}

const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/**
 * api-smart-diff reads OpenAPI 3.0 and knows nothing of webhooks. An event payload is something
 * clients receive, so each webhook becomes an operation whose response is the payload: removing
 * a payload field is then a removed response field, as it is for the receiver.
 */
export function withWebhooksAsOperations(doc: Doc): Doc {
  const out = structuredClone(doc);
  const hooks: Doc = out["x-webhooks"] ?? out.webhooks ?? {};
  delete out["x-webhooks"];
  delete out.webhooks;
  for (const [event, item] of Object.entries<Doc>(hooks)) {
    const op = item.post;
    if (!op) continue;
    out.paths[`/x-webhooks/${event}`] = {
      post: { operationId: op.operationId, responses: { "200": { description: "payload", content: op.requestBody?.content ?? {} } } },
    };
  }
  return out;
}

const escape = (s: string | number) => String(s).replace(/~/g, "~0").replace(/\//g, "~1");

function contextOf(path: (string | number)[], after: Doc, before: Doc): RuleContext | undefined {
  if (path[0] !== "paths") return undefined; // components/: the same change is reported where it is used
  const rest = path.slice(1);
  let side: RuleContext["side"] = "operation";
  if (rest.length <= 2 || (rest.length === 3 && !["parameters", "requestBody", "responses"].includes(String(rest[2])))) side = "operation";
  if (rest.includes("parameters") || rest.includes("requestBody")) side = "request";
  if (rest.includes("responses")) side = "response";
  const key = String(path[path.length - 1]);
  const parentKey = String(path[path.length - 2] ?? "");
  // The whole item added or removed: an operation (or every operation of a path).
  if (rest.length === 1 || (rest.length === 2 && methods.has(String(rest[1])))) side = "operation";
  let extensibleEnum = false;
  if (parentKey === "enum") {
    const schema = resolveAt(after, path.slice(0, -2)) ?? resolveAt(before, path.slice(0, -2));
    extensibleEnum = schema?.["x-extensible-enum"] === true;
  }
  // `examples` under a schema's `properties` is a property named so, not an example.
  const example = rest.some((step, i) => (step === "examples" || step === "example") && rest[i - 1] !== "properties");
  return { side, key, parentKey, extensibleEnum, example };
}

/** Follows a diff path through the document, resolving local $refs on the way. */
function resolveAt(doc: Doc, path: (string | number)[]): Doc | undefined {
  let node: any = doc;
  for (const step of path) {
    while (node && typeof node === "object" && typeof node.$ref === "string") node = deref(doc, node.$ref);
    if (node === undefined || node === null) return undefined;
    node = node[step];
  }
  while (node && typeof node === "object" && typeof node.$ref === "string") node = deref(doc, node.$ref);
  return node;
}

function deref(doc: Doc, ref: string): any {
  if (!ref.startsWith("#/")) return undefined;
  return ref.slice(2).split("/").reduce((n: any, k) => n?.[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

function operationOf(path: (string | number)[]): string {
  const p = String(path[1] ?? "");
  const m = String(path[2] ?? "");
  if (p.startsWith("/x-webhooks/")) return `webhook ${p.slice("/x-webhooks/".length)}`;
  return methods.has(m) ? `${m.toUpperCase()} ${p}` : p;
}

export function compareContracts(released: Doc, current: Doc): Finding[] {
  const before = withWebhooksAsOperations(released);
  const after = withWebhooksAsOperations(current);
  const { diffs } = apiCompare(before, after);
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const d of diffs as Diff[]) {
    if (d.type === "annotation" && !d.path.includes("x-platform-scope")) continue;
    const c = contextOf(d.path, after, before);
    if (!c) continue;
    const rule = rules.find((r) => r.when(d, c))!;
    const verdict: Verdict = rule.verdict ?? (d.type === "breaking" || d.type === "unclassified" ? "breaking" : "compatible");
    const pointer = "/" + d.path.map(escape).join("/");
    if (seen.has(pointer)) continue;
    seen.add(pointer);
    findings.push({ rule: rule.name, verdict, pointer, operation: operationOf(d.path), says: rule.says, description: d.description ?? `${d.action} ${pointer}` });
  }
  return findings;
}
