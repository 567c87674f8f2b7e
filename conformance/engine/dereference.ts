// Inlines local `$ref`s (`#/...`). A reference met again while it is being resolved is a cycle:
// it becomes `{}` (anything), which keeps generation finite and validation permissive at that
// depth only.
export function dereference(doc: any): any {
  const cache = new Map<string, any>();
  const resolving = new Set<string>();

  function lookup(ref: string): any {
    if (!ref.startsWith("#/")) return {}; // external refs are out of scope: accept anything
    let node = doc;
    for (const part of ref.slice(2).split("/")) {
      node = node?.[decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    return node;
  }

  function walk(node: any): any {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== "object") return node;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      const { $ref: _ignored, ...siblings } = node;
      let target: any;
      if (cache.has(ref)) target = cache.get(ref);
      else if (resolving.has(ref)) target = {};
      else {
        resolving.add(ref);
        target = walk(lookup(ref));
        resolving.delete(ref);
        cache.set(ref, target);
      }
      return Object.keys(siblings).length ? { ...target, ...walk(siblings) } : target;
    }
    const out: any = {};
    for (const [k, v] of Object.entries(node)) {
      // Example values are data, not schema: a `$ref` key inside them must survive untouched.
      out[k] = k === "example" || (k === "examples" && Array.isArray(v)) ? v : walk(v);
    }
    return out;
  }

  return walk(doc);
}

