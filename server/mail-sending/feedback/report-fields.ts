// The machine-readable part of a DSN (RFC 3464 §2.1) and of an ARF report (RFC 5965 §3.1) is
// written like header fields: `Name: value`, folded continuation lines, and (for DSNs) groups
// separated by blank lines, the first per message and one per recipient.

/** Field groups in order; names lowercased, a repeated name keeps its first value. */
export function parseFieldGroups(text: string): Map<string, string>[] {
  const groups: Map<string, string>[] = [];
  let current: Map<string, string> | undefined;
  let last: string | undefined;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (line.trim() === "") {
      current = undefined;
      last = undefined;
      continue;
    }
    if (/^[ \t]/.test(line)) {
      // Folded: belongs to the previous field of the group.
      if (current && last) current.set(last, `${current.get(last)} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    if (!current) {
      current = new Map();
      groups.push(current);
    }
    const name = line.slice(0, colon).trim().toLowerCase();
    if (current.has(name)) {
      last = undefined;
      continue;
    }
    current.set(name, line.slice(colon + 1).trim());
    last = name;
  }
  return groups;
}

/** `rfc822; a@b.example` or `<a@b.example>` -> `a@b.example`. */
export function addressOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const typed = value.includes(";") ? value.slice(value.indexOf(";") + 1) : value;
  const bare = typed.trim().replace(/^<|>$/g, "").trim();
  return bare.includes("@") ? bare : undefined;
}
