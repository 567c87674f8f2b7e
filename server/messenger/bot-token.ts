// Bot tokens (docs/decisions.md B3): `<bot id digits>:<20 to 100 of [A-Za-z0-9_-]>`, the form the
// messenger platform issues. Bulk input is an array or text with one token per line.
export const BOT_TOKEN = /^[0-9]{3,20}:[A-Za-z0-9_-]{20,100}$/;
export const MAX_BULK_TOKENS = 100;

export function isBotToken(value: string): boolean {
  return BOT_TOKEN.test(value);
}

/**
 * The tokens of a bulk request: each array item is one (a blank one fails as malformed), text has
 * one per line with blank lines dropped. Undefined when there are more than the cap.
 */
export function bulkTokens(input: string | string[]): string[] | undefined {
  const tokens = typeof input === "string" ? input.split(/\r?\n/).map((t) => t.trim()).filter((t) => t !== "") : input.map((t) => t.trim());
  return tokens.length > MAX_BULK_TOKENS ? undefined : tokens;
}

/** Runs `fn` over `items` with at most `limit` at once, results in input order. */
export async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
