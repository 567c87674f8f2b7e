// Length constraints met by construction. fast-check's `stringMatching` draws a few repetitions
// for `+` and `*`, so `^[0-9a-fA-F]+$` with exactly 40 characters (GitHub's commit SHAs) never
// produced a 40-character string and a filter on the length looped forever. Here the pattern's
// unbounded quantifiers are rewritten into bounded ones whose repetition counts add up to the
// wanted length: `^[0-9a-fA-F]{40,40}$`. What the rewrite cannot make exact (atoms of varying
// width, alternations) is still re-checked by the caller, within its generation budget.

type Node =
  | { kind: "atom"; text: string; width: number } // a character, class, escape or `.`
  | { kind: "zero"; text: string } // anchors, word boundaries, back-references
  | { kind: "group"; open: string; branches: Node[][] }
  | { kind: "repeat"; node: Node; min: number; max: number; lazy: boolean; original: string };

/**
 * The pattern with every unbounded quantifier bounded so that matches fall, as far as the atoms'
 * widths tell, between minLength and maxLength. Undefined when the pattern is not understood.
 */
export function boundPattern(source: string, minLength: number, maxLength: number | undefined): string | undefined {
  let tree: Node[][];
  try {
    tree = parseAlternation(source, { i: 0 }, false);
  } catch {
    return undefined;
  }
  const root: Node = { kind: "group", open: "", branches: tree };
  const floor = minWidth(root);
  const ceiling = maxLength ?? Math.max(minLength, floor) + 16;
  // Unbounded repeats on the main line (not under another repeat or an alternation) carry the
  // length; nested ones stay small.
  const main: Extract<Node, { kind: "repeat" }>[] = [];
  const nested: Extract<Node, { kind: "repeat" }>[] = [];
  collectRepeats(root, true, main, nested);
  const carriers = main.length ? main : nested;
  const deficit = Math.max(0, minLength - floor);
  const slack = Math.max(0, ceiling - Math.max(minLength, floor));
  for (const r of nested) if (!carriers.includes(r)) r.max = r.min + Math.min(3, Math.max(1, slack));
  for (const r of carriers) {
    const extra = Math.ceil(deficit / carriers.length / Math.max(1, minWidth(r.node)));
    // Room above the minimum counts the widest the repeated part can now be.
    const room = Math.floor(slack / carriers.length / Math.max(1, maxWidth(r.node)));
    r.min += extra;
    r.max = r.min + room;
  }
  return serialize(root);
}

function parseAlternation(src: string, pos: { i: number }, inGroup: boolean): Node[][] {
  const branches: Node[][] = [[]];
  while (pos.i < src.length) {
    const ch = src[pos.i];
    if (ch === ")") {
      if (!inGroup) throw new Error("unbalanced )");
      return branches;
    }
    if (ch === "|") {
      pos.i++;
      branches.push([]);
      continue;
    }
    const node = parseAtom(src, pos);
    branches[branches.length - 1].push(parseQuantifier(src, pos, node));
  }
  if (inGroup) throw new Error("unclosed group");
  return branches;
}

function parseAtom(src: string, pos: { i: number }): Node {
  const start = pos.i;
  const ch = src[pos.i];
  if (ch === "^" || ch === "$") {
    pos.i++;
    return { kind: "zero", text: ch };
  }
  if (ch === "(") {
    const m = /^\((\?(?::|<[A-Za-z_$][\w$]*>|[=!]|<[=!]))?/.exec(src.slice(pos.i))!;
    pos.i += m[0].length;
    const branches = parseAlternation(src, pos, true);
    pos.i++; // ")"
    // Lookarounds match nothing; generate through them as if absent is the caller's business.
    if (m[1] && /^\?(<?[=!])$/.test(m[1])) return { kind: "zero", text: src.slice(start, pos.i) };
    return { kind: "group", open: m[0], branches };
  }
  if (ch === "[") {
    let i = pos.i + 1;
    if (src[i] === "^") i++;
    if (src[i] === "]") i++;
    for (; i < src.length && src[i] !== "]"; i++) if (src[i] === "\\") i++;
    if (i >= src.length) throw new Error("unclosed class");
    pos.i = i + 1;
    return { kind: "atom", text: src.slice(start, pos.i), width: 1 };
  }
  if (ch === "\\") {
    const rest = src.slice(pos.i);
    const m = /^\\(?:[bB]|[1-9]\d*|k<[^>]+>)/.exec(rest);
    if (m) {
      pos.i += m[0].length;
      return { kind: "zero", text: m[0] };
    }
    const e = /^\\(?:[pP]\{[^}]+\}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|c[A-Za-z]|0|[\s\S])/.exec(rest)!;
    pos.i += e[0].length;
    return { kind: "atom", text: e[0], width: 1 };
  }
  if (ch === "*" || ch === "+" || ch === "?" || ch === "{") {
    // `{` that is not a quantifier is a literal; a bare `*` is not a pattern we understand.
    if (ch !== "{") throw new Error("quantifier without atom");
  }
  pos.i += ch.codePointAt(0)! > 0xffff ? 2 : 1;
  return { kind: "atom", text: src.slice(start, pos.i), width: 1 };
}

function parseQuantifier(src: string, pos: { i: number }, node: Node): Node {
  const rest = src.slice(pos.i);
  const m = /^(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})(\?)?/.exec(rest);
  if (!m || node.kind === "zero") return node;
  pos.i += m[0].length;
  let min: number;
  let max: number;
  if (m[1] === "*") [min, max] = [0, Infinity];
  else if (m[1] === "+") [min, max] = [1, Infinity];
  else if (m[1] === "?") [min, max] = [0, 1];
  else {
    min = Number(m[2]);
    max = m[3] ? (m[4] ? Number(m[4]) : Infinity) : min;
  }
  return { kind: "repeat", node, min, max, lazy: Boolean(m[5]), original: m[0] };
}

function minWidth(n: Node): number {
  switch (n.kind) {
    case "atom":
      return n.width;
    case "zero":
      return 0;
    case "group":
      return Math.min(...n.branches.map((b) => b.reduce((sum, x) => sum + minWidth(x), 0)));
    case "repeat":
      return n.min * minWidth(n.node);
  }
}

function maxWidth(n: Node): number {
  switch (n.kind) {
    case "atom":
      return n.width;
    case "zero":
      return 0;
    case "group":
      return Math.max(...n.branches.map((b) => b.reduce((sum, x) => sum + maxWidth(x), 0)));
    case "repeat":
      return n.max * maxWidth(n.node);
  }
}

function collectRepeats(n: Node, mainLine: boolean, main: Extract<Node, { kind: "repeat" }>[], nested: Extract<Node, { kind: "repeat" }>[]): void {
  if (n.kind === "group") {
    const single = n.branches.length === 1;
    for (const b of n.branches) for (const x of b) collectRepeats(x, mainLine && single, main, nested);
  } else if (n.kind === "repeat") {
    if (n.max === Infinity) (mainLine ? main : nested).push(n);
    collectRepeats(n.node, false, main, nested);
  }
}

function serialize(n: Node): string {
  switch (n.kind) {
    case "atom":
    case "zero":
      return n.text;
    case "group": {
      const inner = n.branches.map((b) => b.map(serialize).join("")).join("|");
      return n.open ? `${n.open}${inner})` : inner;
    }
    case "repeat": {
      // Bounded quantifiers the contract wrote keep their exact text.
      const unbounded = /^[*+]|,\}/.test(n.original);
      return serialize(n.node) + (unbounded && n.max !== Infinity ? `{${n.min},${n.max}}` : n.original);
    }
  }
}
