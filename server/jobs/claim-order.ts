// Which due jobs a claim takes, and in what order: a generator that asks the store for rows
// (`ClaimRead`) and answers the chosen ones; job-queue.ts answers its reads with one SQL text each
// on both stores.
//
// The order is the queue's fairness: due jobs by (run_at, id), each group up to its room, full
// groups skipped. Walking the run_at index alone reads every row of a group that cannot take
// more: 20,000 due jobs of one busy receiver in front made every claim read all 20,000 (on
// SQLite 3-6 ms a claim instead of a few tenths, README.md). So a claim reads a bounded window of
// that index first (enough
// when the head is varied), and otherwise continues group by group on the (group_key, run_at, id)
// index: each group's head, then the rows up to the head that bounds the claim, merged by
// (run_at, id). A group that cannot take more is dropped, its backlog never read. A refill of busy
// groups (`onlyGroups`) reads those groups only, each through that index.

export interface ClaimCandidate {
  id: number;
  group_key: string | null;
  run_at: number;
}

/** (run_at, id): a position in the queue's order. */
export type QueuePosition = readonly [runAt: number, id: number];

export const QUEUE_START: QueuePosition = [Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];
export const QUEUE_END: QueuePosition = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];

/** What the plan asks of its store; every read sees due (run_at <= now) jobs without a live lease only. */
export type ClaimRead =
  /** The first `limit` rows in (run_at, id) order, whatever their group (the run_at index). */
  | { read: "window"; limit: number }
  /** Up to `limit` distinct group keys (not null), in key order (a skip scan of the group index). */
  | { read: "groups"; limit: number }
  /** Each group's rows in (after, upTo], in (run_at, id) order, the first `perGroup` of each; `null` is the ungrouped jobs. */
  | { read: "rows"; groups: (string | null)[]; after: QueuePosition; upTo: QueuePosition; perGroup: number }
  /** The first `limit` rows after `after` in (run_at, id) order, leaving out the groups `skip` (the run_at index). */
  | { read: "rest"; after: QueuePosition; skip: string[]; limit: number };

/**
 * A claim of `limit` jobs reads at most WINDOW_FACTOR * limit rows of the run_at index before
 * going group by group: the `limit` it takes and `limit` it passes over.
 */
export const WINDOW_FACTOR = 2;
/** Rows per wanted job a claim may read in one go otherwise (the walk's bound before the group index). */
export const READ_FACTOR = 4;
/**
 * Above this many groups in the table, going group by group (a seek per group) could cost more
 * than the rows it saves; the claim then walks on along the run_at index as before.
 */
export const MAX_MERGED_GROUPS = 1000;

const byPosition = (a: ClaimCandidate, b: ClaimCandidate) => a.run_at - b.run_at || a.id - b.id;

/**
 * The candidates a claim takes, in queue order. `groupRoom(group, taken)` says whether the group
 * may take one more after `taken` in this claim (the worker's per-group bound); once it says no,
 * the group's later rows are not read.
 */
export function* planClaim(
  limit: number,
  groupRoom: (group: string | null, taken: number) => boolean,
  fullGroups: string[],
  onlyGroups?: string[],
): Generator<ClaimRead, ClaimCandidate[], unknown> {
  const exhausted = new Set<string | null>(fullGroups);
  const taken = new Map<string | null, number>();
  const chosen: ClaimCandidate[] = [];
  /**
   * Takes rows in the order given while they fit, until the claim is complete or `wasteLimit` rows
   * were passed over; answers how many were read, the last, and whether the rows ran out.
   */
  const offer = (rows: Iterable<ClaimCandidate>, wasteLimit = Infinity) => {
    let read = 0;
    let wasted = 0;
    let last: ClaimCandidate | undefined;
    if (chosen.length >= limit) return { read, last, ranOut: false };
    for (const row of rows) {
      read++;
      last = row;
      const n = taken.get(row.group_key) ?? 0;
      if (exhausted.has(row.group_key) || !groupRoom(row.group_key, n)) {
        exhausted.add(row.group_key);
        if (++wasted >= wasteLimit) return { read, last, ranOut: false };
        continue;
      }
      taken.set(row.group_key, n + 1);
      chosen.push(row);
      if (chosen.length >= limit) return { read, last, ranOut: false };
    }
    return { read, last, ranOut: true };
  };
  if (limit <= 0) return chosen;

  let after: QueuePosition = QUEUE_START;
  let streams: (string | null)[];
  if (onlyGroups) {
    streams = onlyGroups;
  } else {
    const windowSize = limit * WINDOW_FACTOR;
    // A window that passes over as many rows as the claim wants is a backlog of groups that can
    // take no more: the rest of it would be read for nothing (one busy receiver's jobs in front
    // made three in four rows of every claim such rows), so the claim goes group by group.
    const window = offer((yield { read: "window", limit: windowSize }) as Iterable<ClaimCandidate>, limit);
    // The window held every due job, or the claim is complete: as the run_at walk would have it.
    if (chosen.length >= limit || (window.ranOut && window.read < windowSize) || !window.last) return chosen;
    after = [window.last.run_at, window.last.id];
    const keys = (yield { read: "groups", limit: MAX_MERGED_GROUPS + 1 }) as string[];
    if (keys.length > MAX_MERGED_GROUPS) {
      const skip = [...exhausted].filter((g): g is string => g !== null);
      offer((yield { read: "rest", after, skip, limit: (limit - chosen.length) * READ_FACTOR }) as ClaimCandidate[]);
      return chosen;
    }
    streams = [null, ...keys];
  }

  // Merge group by group. Each round reads every live group's head; the `remaining`-th head bounds
  // the round, since at least that many candidates lie at or before it. The round reads the rows up
  // to it (at most `remaining` per group), in queue order. When it ends short, a head was refused,
  // so a group dropped out: the next round starts after the bound with the groups left.
  let live = streams.filter((g) => !exhausted.has(g));
  while (chosen.length < limit && live.length) {
    const remaining = limit - chosen.length;
    // Few groups (a refill, a backlog with little behind it): reading `remaining` of each costs
    // no more than the window did, and saves the round of heads.
    if (live.length * remaining <= limit * READ_FACTOR) {
      offer(((yield { read: "rows", groups: live, after, upTo: QUEUE_END, perGroup: remaining }) as ClaimCandidate[]).sort(byPosition));
      break;
    }
    const heads = ((yield { read: "rows", groups: live, after, upTo: QUEUE_END, perGroup: 1 }) as ClaimCandidate[]).sort(byPosition);
    if (heads.length === 0) break;
    const bounded = heads.length >= remaining;
    const bound = bounded ? heads[remaining - 1] : undefined;
    const upTo: QueuePosition = bound ? [bound.run_at, bound.id] : QUEUE_END;
    const groups = (bounded ? heads.slice(0, remaining) : heads).map((h) => h.group_key);
    offer(((yield { read: "rows", groups, after, upTo, perGroup: remaining }) as ClaimCandidate[]).sort(byPosition));
    // Without a bound every group was read to its end or to where it could take no more.
    if (!bounded) break;
    after = upTo;
    live = heads.map((h) => h.group_key).filter((g) => !exhausted.has(g));
  }
  return chosen;
}

/** Runs a plan, each read awaited. */
export async function runPlan(plan: Generator<ClaimRead, ClaimCandidate[], unknown>, read: (r: ClaimRead) => Promise<ClaimCandidate[] | string[]>): Promise<ClaimCandidate[]> {
  let step = plan.next();
  while (!step.done) step = plan.next(await read(step.value));
  return step.value;
}
