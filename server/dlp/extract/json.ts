// JSON as a reader sees it: one "key: value" line per string or number, escapes decoded (a "\n"
// inside a string is a line break), numbers as written (a 19-digit card number stays whole), so
// a label in a key stands next to its value as in a CSV row. Undefined when the text is not JSON.
type Reviver = (key: string, value: unknown, context?: { source?: string }) => unknown;

export function jsonText(text: string): string | undefined {
  // The reviver's source text (Node 21+) keeps a number's digits beyond what a double holds.
  const reviver: Reviver = (_key, value, context) => (typeof value === "number" && context?.source ? context.source : value);
  let root: unknown;
  try {
    root = JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
  } catch {
    return undefined;
  }
  const out: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (Array.isArray(value)) for (const v of value) walk(v, key);
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) walk(v, k);
    else if (value !== null && value !== undefined) out.push(key ? `${key}: ${String(value)}` : String(value));
  };
  try {
    walk(root, "");
  } catch (error) {
    // Nesting deeper than the stack (a hostile file): the raw text is scanned instead.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  return out.join("\n");
}
