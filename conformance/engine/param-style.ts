// Parameters on the wire as OpenAPI's Parameter Object serializes them (decision CL10): path
// parameters by `style` (`simple`, `label` `.v`, `matrix` `;name=v`), headers `simple`, cookies
// `form`, each with arrays and objects spelt the style's way (`simple` objects `k,v` or `k=v`,
// never JSON), and parameters declared with `content` (a media type instead of a schema) as that
// media type's text: `filter={"a":1}`, not `filter[a]=1`. Query arrays and objects follow the form
// rules of request.ts/media-types.ts. Before, path objects and headers went out as JSON text,
// `label`/`matrix` path parameters as bare values, cookie parameters not at all.
import type { Parameter } from "./types.ts";

function scalar(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** The text of a `content` parameter: JSON for any JSON media type, the scalar's text otherwise. */
export function contentText(p: Parameter, v: unknown): string {
  return /json/i.test(p.contentType ?? "") ? JSON.stringify(v) : scalar(v);
}

/**
 * One path segment's text, already percent-encoded (the separators the style adds stay literal).
 * `simple`: `a,b` / objects `k,v,k2,v2` (explode: `k=v,k2=v2`); `label`: the same after `.`, with
 * `.` between exploded items; `matrix`: `;name=a,b`, exploded `;name=a;name=b`, objects exploded
 * `;k=v;k2=v2`.
 */
export function pathText(p: Parameter | undefined, value: unknown, encode: (s: string) => string): string {
  if (p?.contentType) return encode(contentText(p, value));
  const style = p?.style ?? "simple";
  const explode = p?.explode ?? false;
  const name = p?.name ?? "";
  if (Array.isArray(value)) {
    const items = value.map((v) => encode(scalar(v)));
    if (style === "label") return `.${items.join(explode ? "." : ",")}`;
    if (style === "matrix") return explode ? items.map((i) => `;${name}=${i}`).join("") : `;${name}=${items.join(",")}`;
    return items.join(",");
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => [encode(k), encode(scalar(v))] as const);
    const kv = explode ? entries.map(([k, v]) => `${k}=${v}`) : entries.flatMap(([k, v]) => [k, v]);
    if (style === "label") return `.${kv.join(explode ? "." : ",")}`;
    if (style === "matrix") return explode ? kv.map((x) => `;${x}`).join("") : `;${name}=${kv.join(",")}`;
    return kv.join(",");
  }
  const text = encode(scalar(value));
  if (style === "label") return `.${text}`;
  if (style === "matrix") return `;${name}${value === "" ? "" : `=${text}`}`;
  return text;
}

/** A header's value, `simple` style: arrays `a,b`, objects `k,v` (explode: `k=v`). */
export function headerText(p: Parameter | undefined, value: unknown): string {
  if (p?.contentType) return contentText(p, value);
  if (Array.isArray(value)) return value.map(scalar).join(",");
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    return (p?.explode ? entries.map(([k, v]) => `${k}=${scalar(v)}`) : entries.flatMap(([k, v]) => [k, scalar(v)])).join(",");
  }
  return scalar(value);
}

/**
 * Cookie pairs for a cookie parameter, `form` style (the only one OpenAPI defines for cookies):
 * a scalar `name=v`; arrays and objects unexploded `name=a,b` / `name=k,v` (exploded arrays repeat
 * the name). Values are percent-encoded: a cookie value cannot hold `;`, `,`, spaces or quotes.
 */
export function cookiePairs(p: Parameter | undefined, name: string, value: unknown): [string, string][] {
  const enc = (s: string) => encodeURIComponent(s.toWellFormed());
  if (p?.contentType) return [[name, enc(contentText(p, value))]];
  if (Array.isArray(value)) return p?.explode ? value.map((v) => [name, enc(scalar(v))]) : [[name, value.map((v) => enc(scalar(v))).join(",")]];
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (p?.explode) return entries.map(([k, v]) => [k, enc(scalar(v))]);
    return [[name, entries.flatMap(([k, v]) => [enc(k), enc(scalar(v))]).join(",")]];
  }
  return [[name, enc(scalar(value))]];
}
