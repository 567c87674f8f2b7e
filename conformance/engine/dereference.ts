// `$ref`s of an OpenAPI contract, followed on demand: local ones (`#/...`) and, when the contract
// was loaded with its documents (documents.ts), relative files and URLs beside it. Nothing is
// copied: the loader asks for the objects it needs (a parameter, a response, a schema) and gets the
// object the reference points at, so a component used in 200 places is one object, and a part of
// the document no operation uses (an `x-` extension, an example's value, an unused component) is
// never visited. Stripe's contract, inlined as full trees, was 8e9 nodes.
//
// Pointers name a place in any document of the contract: `#/components/schemas/A` in the root,
// `resources/apps/models/app.yml#/properties/spec` in a file beside it (relative to the root's
// folder), a full URL otherwise. A reference is resolved against the document it is written in,
// which the pointer of the place it is written at names.
import type { ContractWarning, DocumentSet } from "./types.ts";

/** Decodes one JSON pointer segment (`~1` is `/`, `~0` is `~`; percent-encoding from URIs too). */
export function unescapePointer(part: string): string {
  let s = part;
  try {
    s = decodeURIComponent(part);
  } catch {
    /* a literal `%` in a key: keep it */
  }
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

export function escapePointer(part: string): string {
  return part.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Stands for the root document when the contract is one object with no location (tests, tools). */
const NO_LOCATION = "file:///contract";

export class RefResolver {
  readonly warnings: ContractWarning[] = [];
  private readonly warned = new Set<string>();

  readonly doc: any;
  private readonly set: DocumentSet | undefined;
  private readonly urlByKey = new Map<string, string>();
  private readonly keyByUrl = new Map<string, string>();

  constructor(doc: any, set?: DocumentSet) {
    this.doc = doc;
    this.set = set;
    const root = set?.root ?? NO_LOCATION;
    this.urlByKey.set("", root);
    this.keyByUrl.set(root, "");
  }

  /** The node at a reference written at `from`, or undefined (with a warning) when there is none. */
  lookup(ref: string, from: string): any {
    return this.resolve(ref, from).node;
  }

  /** The node a reference points at and its pointer; node undefined (with a warning) when there is none. */
  resolve(ref: string, from: string): { node: any; pointer: string; problem?: string } {
    const hash = ref.indexOf("#");
    const file = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? "" : ref.slice(hash + 1);
    const base = this.urlOf(from);
    let url = base;
    if (file) {
      try {
        const u = new URL(file, base);
        u.hash = "";
        url = u.href;
      } catch {
        return this.missing(from, `reference ${ref} is not a valid URI`, ref);
      }
    }
    const doc = url === this.urlByKey.get("") ? this.doc : this.set?.docs.get(url);
    const pointer = `${this.keyOf(url)}#${fragment}`;
    if (doc === undefined) {
      const why = this.set?.errors.get(url) ?? "it is not loaded (the contract was given as an object, not a location)";
      return this.missing(from, `reference ${ref} cannot be followed: ${why}`, pointer);
    }
    if (fragment && !fragment.startsWith("/")) return this.missing(from, `reference ${ref}: only JSON pointer fragments are followed`, pointer);
    let node = doc;
    for (const part of fragment ? fragment.slice(1).split("/") : []) {
      if (!node || typeof node !== "object") {
        node = undefined;
        break;
      }
      node = Object.hasOwn(node, unescapePointer(part)) ? node[unescapePointer(part)] : undefined;
    }
    if (node === undefined) return this.missing(from, `reference ${ref} points at nothing`, pointer);
    return { node, pointer };
  }

  private missing(from: string, problem: string, pointer: string) {
    this.warn(from, `${problem}: what it describes is not validated`);
    return { node: undefined, pointer, problem: `${from}: ${problem}` };
  }

  /**
   * Follows a chain of `$ref`s for a non-schema object (parameter, request body, response,
   * header, example, link, path item, operation) and returns the object and its pointer. When the
   * chain ends nowhere, `problem` says where and why.
   */
  follow(node: any, pointer: string): { node: any; pointer: string; problem?: string } {
    const seen = new Set<string>();
    while (node && typeof node === "object" && typeof node.$ref === "string") {
      const ref = node.$ref as string;
      const target = this.resolve(ref, pointer);
      if (seen.has(target.pointer)) {
        this.warn(pointer, `reference cycle through ${ref}`);
        return { node: undefined, pointer, problem: `${pointer}: reference cycle through ${ref}` };
      }
      seen.add(target.pointer);
      if (target.node === undefined) return target;
      node = target.node;
      pointer = target.pointer;
    }
    return { node, pointer };
  }

  warn(pointer: string, message: string) {
    const key = `${pointer} ${message}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warnings.push({ pointer, message });
  }

  /** The document a pointer is in, as a URL. */
  private urlOf(pointer: string): string {
    const key = pointer.slice(0, Math.max(0, pointer.indexOf("#")));
    return this.urlByKey.get(key) ?? key;
  }

  /** How pointers name a document: "" for the root, a path relative to its folder, else the URL. */
  private keyOf(url: string): string {
    let key = this.keyByUrl.get(url);
    if (key !== undefined) return key;
    const root = new URL(this.urlByKey.get("")!);
    const target = new URL(url);
    key = url;
    if (target.protocol === root.protocol && target.host === root.host) {
      const from = root.pathname.split("/").slice(0, -1);
      const to = target.pathname.split("/");
      let common = 0;
      while (common < from.length && common < to.length - 1 && from[common] === to[common]) common++;
      key = decodeURIComponent([...Array(from.length - common).fill(".."), ...to.slice(common)].join("/"));
    }
    // Two URLs that would read the same (a root at a URL and a file of the same name): keep the URL.
    if (this.urlByKey.has(key) && this.urlByKey.get(key) !== url) key = url;
    this.keyByUrl.set(url, key);
    this.urlByKey.set(key, url);
    return key;
  }
}

// Keys that are names, not keywords: a property called `example` or `enum` is still a schema.
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "schemas", "paths", "responses", "parameters", "headers", "content", "callbacks", "links", "securitySchemes", "requestBodies", "pathItems", "webhooks", "examples"]);

/** Whether the value under key `k` of a keyword object is data (examples, defaults, enums, `x-`), not OpenAPI. */
function isData(k: string, v: unknown): boolean {
  return k === "example" || k === "value" || k === "default" || k === "enum" || k === "const" || k.startsWith("x-") || (k === "examples" && Array.isArray(v));
}

/**
 * Every `$ref` written in a position OpenAPI or JSON Schema reads, with the pointer of the object
 * holding it. Example values and `x-` extensions are data, so a `$ref` key inside them is skipped.
 */
export function forEachRef(doc: unknown, visit: (ref: string, at: string) => void, at = "#"): void {
  const seen = new Set<object>();
  const walk = (node: any, pointer: string, namesHere: boolean) => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    // Also in a map of names (`properties: {$ref: props.yml}`, DigitalOcean): a property named
    // `$ref` would hold a schema, not a string, so Redocly reads it as a reference, and so does this.
    if (typeof node.$ref === "string") visit(node.$ref, pointer);
    for (const [k, v] of Object.entries(node)) {
      const keywords = !namesHere && !Array.isArray(node);
      if (keywords && (k === "$ref" || isData(k, v))) continue;
      walk(v, `${pointer}/${escapePointer(k)}`, keywords && NAME_MAPS.has(k));
    }
  };
  walk(doc, at, false);
}

/**
 * The whole document with every local reference replaced by the object it points at (shared, not
 * copied; a cycle becomes a cyclic object graph). For tests and tools that want a plain object to
 * read; the loader follows references lazily instead. Example values and `x-` extensions are data
 * and left exactly as written, `$ref` keys inside them included.
 */
export function dereference(doc: any): any {
  const resolver = new RefResolver(doc);
  const done = new Map<any, any>();
  function walk(node: any, pointer: string, namesHere: boolean): any {
    if (!node || typeof node !== "object") return node;
    if (typeof node.$ref === "string") {
      const target = resolver.resolve(node.$ref, pointer);
      return target.node === undefined ? {} : walk(target.node, target.pointer, false);
    }
    if (done.has(node)) return done.get(node);
    const out: any = Array.isArray(node) ? [] : {};
    done.set(node, out);
    for (const [k, v] of Object.entries(node)) {
      const data = !namesHere && !Array.isArray(node) && isData(k, v);
      out[k] = data ? v : walk(v, `${pointer}/${escapePointer(k)}`, !namesHere && !Array.isArray(node) && NAME_MAPS.has(k));
    }
    return out;
  }
  return walk(doc, "#", false);
}
