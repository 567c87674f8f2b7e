// Maps a finding's JSON pointer to the line of the document it names, for annotations on the
// changed lines (GitHub's `::error file=..,line=..`). The pointer is walked through the text's
// YAML/JSON nodes, following local $refs where the pointer goes through one (a finding inside a
// referenced schema lands on the schema's own lines); where it leads nowhere (something removed),
// the closest existing ancestor's line is used.
import { isMap, isScalar, isSeq, parseDocument, type Node } from "yaml";

export function lineOf(text: string, pointer: string): number {
  let doc;
  try {
    doc = parseDocument(text, { uniqueKeys: false });
  } catch {
    return 1;
  }
  const segments = pointer
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const keyOf = (k: unknown) => (isScalar(k) ? String(k.value) : String(k));
  const find = (node: unknown, seg: string): { node: unknown; offset?: number } | undefined => {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyOf(p.key) === seg);
      if (pair) return { node: pair.value, offset: (pair.key as Node | null)?.range?.[0] };
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)] as Node | undefined;
      if (item) return { node: item, offset: item.range?.[0] };
    }
    return undefined;
  };
  const resolveRef = (node: unknown): unknown => {
    for (let hops = 0; hops < 16 && isMap(node); hops++) {
      const ref = node.items.find((p) => keyOf(p.key) === "$ref");
      const target = ref && isScalar(ref.value) ? String(ref.value.value) : undefined;
      if (!target?.startsWith("#/")) return node;
      let n: unknown = doc.contents;
      for (const s of target.slice(2).split("/"))
        n = find(n, decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"))?.node;
      if (!n) return node;
      node = n;
    }
    return node;
  };
  let node: unknown = doc.contents;
  let offset = 0;
  for (const seg of segments) {
    const next = find(node, seg) ?? find(resolveRef(node), seg);
    if (!next) break;
    node = next.node;
    if (next.offset !== undefined) offset = next.offset;
  }
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
