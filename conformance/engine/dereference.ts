// Local `$ref`s (`#/...`) of an OpenAPI document, followed on demand. Nothing is copied: the
// loader asks for the objects it needs (a parameter, a response, a schema) and gets the object the
// reference points at, so a component used in 200 places is one object, and a part of the
// document no operation uses (an `x-` extension, an example's value, an unused component) is
// never visited. Stripe's contract, inlined as full trees, was 8e9 nodes.
import type { ContractWarning } from "./types.ts";

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

export class RefResolver {
  readonly warnings: ContractWarning[] = [];
  private readonly warned = new Set<string>();

  readonly doc: any;

  constructor(doc: any) {
    this.doc = doc;
  }

  /** The node at a local reference, or undefined (with a warning) when there is none. */
  lookup(ref: string, from: string): any {
    if (ref === "#") return this.doc;
    if (!ref.startsWith("#/")) {
      this.warn(from, `external reference ${ref} is not followed: what it describes is not validated`);
      return undefined;
    }
    let node = this.doc;
    for (const part of ref.slice(2).split("/")) {
      if (!node || typeof node !== "object") break;
      node = Object.hasOwn(node, unescapePointer(part)) ? node[unescapePointer(part)] : undefined;
    }
    if (node === undefined) this.warn(from, `reference ${ref} points at nothing: what it describes is not validated`);
    return node;
  }

  /**
   * Follows a chain of `$ref`s for a non-schema object (parameter, request body, response,
   * header, example, link, path item) and returns the object and its pointer.
   */
  follow(node: any, pointer: string): { node: any; pointer: string } {
    const seen = new Set<string>();
    while (node && typeof node === "object" && typeof node.$ref === "string") {
      const ref = node.$ref as string;
      if (seen.has(ref)) {
        this.warn(pointer, `reference cycle through ${ref}`);
        return { node: undefined, pointer };
      }
      seen.add(ref);
      node = this.lookup(ref, pointer);
      pointer = ref;
    }
    return { node, pointer };
  }

  warn(pointer: string, message: string) {
    const key = `${pointer} ${message}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warnings.push({ pointer, message });
  }
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
  // Keys that are names, not keywords: a property called `example` or `enum` is still a schema.
  const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "schemas", "paths", "responses", "parameters", "headers", "content", "callbacks", "links", "securitySchemes", "requestBodies", "pathItems", "webhooks", "examples"]);
  function walk(node: any, pointer: string, namesHere: boolean): any {
    if (!node || typeof node !== "object") return node;
    if (typeof node.$ref === "string" && !namesHere) {
      const target = resolver.lookup(node.$ref, pointer);
      return target === undefined ? {} : walk(target, node.$ref, false);
    }
    if (done.has(node)) return done.get(node);
    const out: any = Array.isArray(node) ? [] : {};
    done.set(node, out);
    for (const [k, v] of Object.entries(node)) {
      const data = !namesHere && !Array.isArray(node) && (k === "example" || k === "value" || k === "default" || k === "enum" || k === "const" || k.startsWith("x-") || (k === "examples" && Array.isArray(v)));
      out[k] = data ? v : walk(v, `${pointer}/${escapePointer(k)}`, !namesHere && !Array.isArray(node) && NAME_MAPS.has(k));
    }
    return out;
  }
  return walk(doc, "#", false);
}
