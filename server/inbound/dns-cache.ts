// A small cache in front of the resolver for mail authentication. Every MTA asks a caching
// resolver; without one each message of a busy sender repeats the same SPF and DMARC lookups,
// and a lookup waits behind whatever the event loop is doing. Answers and definite negatives
// (no such name, no such record, refused) are kept for a minute; timeouts and other failures
// are not kept, so a flaky server is asked again.
type Resolve = (name: string, rrtype: string) => Promise<unknown>;

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;
const DEFINITE = new Set(["ENOTFOUND", "ENODATA", "EREFUSED"]);

export function cachedResolve(resolve: Resolve, now: () => number = Date.now): Resolve {
  const entries = new Map<string, { until: number; answer: Promise<unknown> }>();
  return (name, rrtype) => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = entries.get(key);
    if (hit && hit.until > now()) return hit.answer;
    if (entries.size >= MAX_ENTRIES) entries.clear();
    const answer = resolve(name, rrtype);
    entries.set(key, { until: now() + TTL_MS, answer });
    answer.catch((error: NodeJS.ErrnoException) => {
      if (!DEFINITE.has(error.code ?? "")) entries.delete(key);
    });
    return answer;
  };
}
