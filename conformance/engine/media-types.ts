// Request bodies on the wire, per media type. Cases hold bodies as JSON values (so generation,
// mutation and shrinking work on values, whatever the media type); this file turns a value into
// the bytes its declared media type means: JSON, `application/x-www-form-urlencoded` (OpenAPI
// `encoding` with style/explode), `multipart/form-data` (files for binary properties, per-part
// Content-Type from `encoding`), or plain text. Twilio's form bodies and OpenAI's uploads used to
// go out as JSON text under their declared type.
import type { JsonSchema } from "./types.ts";
import { validate, validateParam } from "./validator.ts";

export type BodyKind = "json" | "form" | "multipart" | "text";

/** How the suite can produce a body of this media type, or undefined when it cannot. */
export function bodyKind(mediaType: string): BodyKind | undefined {
  const m = mediaType.split(";")[0].trim().toLowerCase();
  if (/^application\/(?:[\w.-]+\+)?json$/.test(m) || /\+json$/.test(m) || /json/.test(m) || m === "*/*" || m === "application/*") return "json";
  if (m === "application/x-www-form-urlencoded") return "form";
  if (m === "multipart/form-data") return "multipart";
  if (m === "text/plain" || m === "application/octet-stream") return "text";
  return undefined;
}

/** The media type a generated body is sent as: JSON first, as before, then the others the suite can produce. */
export function preferredMediaType(mediaTypes: string[]): string | undefined {
  const order: BodyKind[] = ["json", "form", "multipart", "text"];
  for (const kind of order) {
    const found = mediaTypes.find((m) => bodyKind(m) === kind);
    if (found) return found;
  }
  return mediaTypes[0];
}

/** OpenAPI Encoding Objects by property name (requestBody.content[type].encoding). */
export type Encodings = Record<string, { contentType?: string; style?: string; explode?: boolean; headers?: unknown }>;

export interface EncodedBody {
  body: string;
  contentType: string;
}

export function encodeBody(mediaType: string, value: unknown, schema: JsonSchema | undefined, encoding: Encodings = {}): EncodedBody {
  switch (bodyKind(mediaType)) {
    case "form":
      return { body: encodeForm(value, encoding), contentType: mediaType };
    case "multipart":
      return encodeMultipart(value, schema, encoding);
    case "text":
      return { body: value === undefined ? "" : typeof value === "string" ? value : scalarText(value), contentType: mediaType };
    default:
      // `*/*` accepts anything: say what is sent.
      return { body: value === undefined ? "" : JSON.stringify(value), contentType: /^(\*\/\*|application\/\*)$/.test(mediaType) ? "application/json" : mediaType };
  }
}

/** Text of a value as a form field or a text part: objects and arrays beyond one level as JSON. */
function scalarText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * `application/x-www-form-urlencoded`, each property by its Encoding Object's style (default
 * `form`, explode true): arrays repeat the name or join with `,` / space / `|`, objects spread
 * their properties or join `k,v`, `deepObject` nests `name[key]` (and `name[0]` for arrays, as
 * Stripe's contract expects). Names and values are percent-encoded (a `%` is `%25`).
 */
export function encodeForm(value: unknown, encoding: Encodings = {}): string {
  if (value === undefined) return "";
  // A body that is not an object (a negative case: "string instead of object") goes out as text.
  if (value === null || typeof value !== "object" || Array.isArray(value)) return encodeURIComponent(scalarText(value));
  const pairs: [string, string][] = [];
  for (const [name, v] of Object.entries(value)) {
    // A form has no null: an empty field is read as absent by most servers, so null is left out.
    if (v === undefined || v === null) continue;
    const enc = encoding[name] ?? {};
    const style = enc.style ?? "form";
    const explode = enc.explode ?? style === "form";
    if (style === "deepObject" && v !== null && typeof v === "object") {
      deepPairs(name, v, pairs);
    } else if (Array.isArray(v)) {
      if (explode) for (const item of v) pairs.push([name, scalarText(item)]);
      else pairs.push([name, v.map(scalarText).join(style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",")]);
    } else if (v !== null && typeof v === "object") {
      if (explode) for (const [k, x] of Object.entries(v)) pairs.push([k, scalarText(x)]);
      else pairs.push([name, Object.entries(v).flatMap(([k, x]) => [k, scalarText(x)]).join(",")]);
    } else pairs.push([name, scalarText(v)]);
  }
  return pairs.map(([k, v]) => `${formEscape(k)}=${formEscape(v)}`).join("&");
}

function deepPairs(prefix: string, v: unknown, out: [string, string][]): void {
  if (v !== null && typeof v === "object") {
    const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v);
    for (const [k, x] of entries) deepPairs(`${prefix}[${k}]`, x, out);
  } else if (v !== null) out.push([prefix, scalarText(v)]);
}

/** encodeURIComponent, with the characters it leaves alone that form parsers treat specially escaped too. */
function formEscape(s: string): string {
  // A lone surrogate (fast-check draws them) has no UTF-8 form: encodeURIComponent throws on it.
  return encodeURIComponent(s.toWellFormed()).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Whether a property is a file: `format: binary` (3.0), `contentMediaType` or base64 content (3.1). */
function isFile(schema: any): boolean {
  if (!schema || typeof schema !== "object") return false;
  if (schema.format === "binary" || typeof schema.contentMediaType === "string") return true;
  return false;
}

/**
 * `multipart/form-data`: one part per property (one per item for arrays), files with a filename,
 * each part's Content-Type from `encoding`, else the OpenAPI default (octet-stream for files, JSON
 * for objects, text/plain for the rest). Written by hand so the body stays text for reports and curl.
 */
export function encodeMultipart(value: unknown, schema: JsonSchema | undefined, encoding: Encodings = {}, boundary = "----platform-conformance-7MA4YWxkTrZu0gW"): EncodedBody {
  const props: Record<string, any> = (schema as any)?.properties ?? {};
  const parts: string[] = [];
  const add = (name: string, v: unknown, propSchema: any) => {
    const file = isFile(propSchema);
    const declared = encoding[name]?.contentType?.split(",")[0].trim();
    const contentType = declared && !declared.includes("*") ? declared : file ? (propSchema?.contentMediaType ?? "application/octet-stream") : v !== null && typeof v === "object" ? "application/json" : "text/plain";
    const disposition = `form-data; name="${quoted(name)}"${file ? `; filename="${quoted(name)}.bin"` : ""}`;
    const text = contentType.includes("json") && typeof v !== "string" ? JSON.stringify(v) : scalarText(v);
    parts.push(`--${boundary}\r\nContent-Disposition: ${disposition}\r\nContent-Type: ${contentType}\r\n\r\n${text}\r\n`);
  };
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [name, v] of Object.entries(value)) {
      if (v === undefined || v === null) continue; // as in forms: no null, the part is absent
      const prop = props[name];
      const enc = encoding[name];
      const asJson = (enc?.contentType ?? "").includes("json");
      if (asJson || v === null || typeof v !== "object") add(name, v, prop);
      else if (Array.isArray(v)) {
        // An explicit `style: form` repeats the name (OpenAPI's reading); otherwise `name[]`, the
        // convention OpenAI's and Stripe's docs use (`-F "timestamp_granularities[]=word"`) and that
        // Prism and qs-style parsers read as an array even with one item, which a repeated name is not.
        const partName = enc?.style === "form" ? name : `${name}[]`;
        for (const item of v) if (item !== null && item !== undefined) add(partName, item, prop?.items);
      } else if (enc?.style === "deepObject" || enc?.style === "form") {
        // `name[key]` parts (`-F expires_after[anchor]=created_at`) where `encoding` asks for a
        // style (OpenAPI 3.1.1 applies style to multipart too).
        const pairs: [string, string][] = [];
        deepPairs(name, v, pairs);
        for (const [k, text] of pairs) add(k, text, undefined);
      } else {
        // OpenAPI's default for an object part: one part of `application/json` (decision CL14),
        // as Schemathesis and Scalar send it; it was `name[key]` parts, OpenAI's documented form,
        // which a server following the contract (Box's `attributes`) does not read.
        add(name, v, prop);
      }
    }
  } else if (value !== undefined) {
    // Not an object (a negative case): a single unnamed-looking part the server must refuse.
    add("body", value, undefined);
  }
  return { body: `${parts.join("")}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

function quoted(s: string): string {
  return s.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c));
}

/**
 * A body value as the server sees it after parsing a form or multipart body: every leaf is text.
 * Validity of such a body is judged on that, with the schema's types coerced as for parameters,
 * so a mutation that only exists in JSON (the number 12345 for a string) is not called negative.
 */
export function asReceivedText(value: unknown): unknown {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(asReceivedText);
  // Null properties are not sent (see encodeForm), so the server sees them absent.
  if (typeof value === "object") return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, asReceivedText(v)]));
  return String(value);
}

/** Validity of a body value as the server will read it: JSON as is, text as text, forms coerced from text. */
export function validBody(mediaType: string, schema: JsonSchema, value: unknown): { valid: boolean; errors: string[] } {
  const kind = bodyKind(mediaType);
  if (kind !== "form" && kind !== "multipart") return validate(schema, value);
  // validateParam coerces text to the schema's types (ajv coerceTypes "array"), as servers do.
  const valid = validateParam(schema, asReceivedText(value) as string);
  return { valid, errors: valid ? [] : [`as ${mediaType} the server reads a value its schema refuses`] };
}
