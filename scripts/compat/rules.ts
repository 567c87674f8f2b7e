// Which change of the contract breaks a client built against the last release (decision V1).
// api-smart-diff walks both documents (refs resolved) and proposes a verdict per change; this
// table names each change after the rule it falls under (oasdiff's catalogue is the model) and,
// where V1 or the field's usual rules differ from the library's default, says so. First match wins.
import type { Diff } from "api-smart-diff";

export type Verdict = "breaking" | "compatible";

export interface RuleContext {
  /** `request` (parameters, request body), `response`, or `operation` (the operation itself). */
  side: "request" | "response" | "operation";
  /** The last key of the changed location, e.g. `pattern`, `enum`, `properties`. */
  key: string;
  /** The key before it, e.g. `properties` when a property was added or removed. */
  parentKey: string;
  /** True when the enum's schema declares `x-extensible-enum: true` (values may be added). */
  extensibleEnum: boolean;
  /** True inside a media type's `example`/`examples`: sample values, not what is accepted or sent. */
  example: boolean;
}

export interface Rule {
  name: string;
  /** Why, in one line, for the changelog and the gate's message. */
  says: string;
  when: (d: Diff, c: RuleContext) => boolean;
  /** Fixed verdict; absent means the library's verdict (breaking stays breaking, the rest compatible). */
  verdict?: Verdict;
}

const constraintKeys = ["maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "maxItems", "minItems", "multipleOf", "maxProperties", "minProperties", "format"];

export const rules: Rule[] = [
  { name: "scope-changed", says: "the operation requires another scope, so existing keys may be refused", when: (_d, c) => c.key === "x-platform-scope", verdict: "breaking" },
  // An example shows a value; no client parses against it. A new required response field has to
  // appear in the operation's examples (TypeSpec's warnings are errors), so without this rule no
  // field could ever be added to an operation that has one.
  { name: "example-changed", says: "a documentation example changed (not part of what is accepted or sent)", when: (_d, c) => c.example, verdict: "compatible" },
  { name: "operation-removed", says: "an operation clients call is gone", when: (d, c) => c.side === "operation" && d.action === "remove", verdict: "breaking" },
  { name: "operation-added", says: "a new operation", when: (d, c) => c.side === "operation" && d.action === "add", verdict: "compatible" },
  { name: "response-status-removed", says: "clients handling this status never see it again, or see another", when: (d, c) => c.parentKey === "responses" && d.action === "remove", verdict: "breaking" },
  { name: "response-status-added", says: "a new status (V1: new error codes are additive)", when: (d, c) => c.parentKey === "responses" && d.action === "add", verdict: "compatible" },
  { name: "request-content-type-removed", says: "clients sending this media type are refused", when: (d, c) => c.side === "request" && c.parentKey === "content" && d.action === "remove", verdict: "breaking" },
  { name: "response-content-type-removed", says: "clients parsing this media type get another", when: (d, c) => c.side === "response" && c.parentKey === "content" && d.action === "remove", verdict: "breaking" },
  { name: "content-type-added", says: "a further media type", when: (d, c) => c.parentKey === "content" && d.action === "add", verdict: "compatible" },
  { name: "response-property-removed", says: "clients reading this field no longer get it", when: (d, c) => c.side === "response" && c.parentKey === "properties" && d.action === "remove", verdict: "breaking" },
  { name: "response-property-added", says: "a new response field (V1: clients ignore unknown fields)", when: (d, c) => c.side === "response" && c.parentKey === "properties" && d.action === "add", verdict: "compatible" },
  { name: "response-property-became-optional", says: "a field clients rely on may be missing", when: (d, c) => c.side === "response" && c.parentKey === "required" && d.action === "remove", verdict: "breaking" },
  { name: "response-property-became-required", says: "a field is now always present", when: (d, c) => c.side === "response" && c.parentKey === "required" && d.action === "add", verdict: "compatible" },
  { name: "response-enum-value-added", says: "clients that switch on this value meet one they do not know (compatible only where the enum is declared extensible)", when: (d, c) => c.side === "response" && c.parentKey === "enum" && d.action === "add" && !c.extensibleEnum, verdict: "breaking" },
  { name: "response-extensible-enum-value-added", says: "a new value of an enum declared extensible (x-extensible-enum)", when: (d, c) => c.side === "response" && c.parentKey === "enum" && d.action === "add", verdict: "compatible" },
  { name: "response-enum-value-removed", says: "a value is no longer sent", when: (d, c) => c.side === "response" && c.parentKey === "enum" && d.action === "remove", verdict: "compatible" },
  { name: "request-enum-value-removed", says: "clients sending this value are refused", when: (d, c) => c.side === "request" && c.parentKey === "enum" && d.action === "remove", verdict: "breaking" },
  { name: "request-enum-value-added", says: "a new accepted value", when: (d, c) => c.side === "request" && c.parentKey === "enum" && d.action === "add", verdict: "compatible" },
  { name: "request-property-became-required", says: "clients that leave this field out are refused", when: (d, c) => c.side === "request" && c.parentKey === "required" && d.action === "add", verdict: "breaking" },
  { name: "request-property-became-optional", says: "a field may now be left out", when: (d, c) => c.side === "request" && c.parentKey === "required" && d.action === "remove", verdict: "compatible" },
  { name: "request-property-added", says: "a new request field (breaking only when required)", when: (d, c) => c.side === "request" && c.parentKey === "properties" && d.action === "add" },
  { name: "request-property-removed", says: "a request field is no longer declared", when: (d, c) => c.side === "request" && c.parentKey === "properties" && d.action === "remove" },
  { name: "request-parameter-became-required", says: "clients that leave this parameter out are refused", when: (d, c) => c.side === "request" && c.key === "required" && c.parentKey !== "required" && d.after === true, verdict: "breaking" },
  { name: "request-parameter-added", says: "a new parameter (breaking only when required)", when: (d, c) => c.side === "request" && c.parentKey === "parameters" && d.action === "add" },
  { name: "request-parameter-removed", says: "a parameter is no longer declared", when: (d, c) => c.side === "request" && c.parentKey === "parameters" && d.action === "remove" },
  { name: "type-changed", says: "the value's type changed", when: (_d, c) => c.key === "type" },
  { name: "pattern-changed", says: "the value's pattern changed (a tightened pattern refuses values clients send)", when: (_d, c) => c.key === "pattern" },
  ...constraintKeys.map((k): Rule => ({ name: `${kebab(k)}-changed`, says: `${k} changed (narrowing refuses values clients send)`, when: (_d, c) => c.key === k })),
  { name: "schema-changed", says: "another change of a schema", when: () => true },
];

function kebab(s: string): string {
  return s.replace(/[A-Z]/g, (m) => `-${m.toLowerCase()}`);
}
