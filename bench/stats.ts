// The numbers every benchmark prints the same way (issue 32): goals are judged on the median of
// per-round ratios (targets measured back to back in one round share the machine's load of that
// moment, so their ratio is steadier than a ratio of medians), and every result carries the load
// average before and after, because on a shared two-core machine absolute numbers move with it.
import { loadavg } from "node:os";

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * A distribution-free interval for the median of `values` (the sign test's order statistics): the
 * k-th smallest and k-th largest, k the largest with P(Binomial(n, 1/2) < k) at most 2.5 %; so it
 * covers the true median at least 95 % of the time, whatever the rounds' spread. Undefined below
 * 6 values (no such k). On a shared machine it says whether a median just under a goal is a
 * regression or the machine's noise: 12 rounds give the 3rd smallest to the 3rd largest.
 */
export function medianInterval(values: readonly number[]): [low: number, high: number] | undefined {
  const n = values.length;
  let k = 0;
  let below = 0; // P(B < k + 1) as k grows
  let term = 0.5 ** n; // P(B = k)
  while (below + term <= 0.025) {
    below += term;
    term = (term * (n - k)) / (k + 1);
    k++;
  }
  if (k === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return [sorted[k - 1], sorted[n - k]];
}

/** `a[i] / b[i]` for each round i. */
export const roundRatios = (a: readonly number[], b: readonly number[]): number[] => a.map((x, i) => x / b[i]);

/** The goal's number: the median of the per-round ratios of `a` to `b`. */
export const medianRatio = (a: readonly number[], b: readonly number[]): number => median(roundRatios(a, b));

/** One goal of issue 32 as a run measured it: `npm run bench` ends with all of them. */
export interface GoalResult {
  name: string;
  value: number;
  goal: number;
  /** "at least" for throughput ratios, "at most" for CPU ratios */
  kind: "at least" | "at most";
  met: boolean;
  /**
   * What the machine allows: the same ratio for the bare floor (the least code that does the job
   * in Node, no code of ours) against the same peer, measured in the same run. Node's user time
   * per unit of work differs about 2x between machines while a C peer's does not, so a verdict
   * read without it says as much about the machine as about the code (issue 37). Undefined where
   * the goal's baseline is itself the bare floor.
   */
  floor?: number;
}

const goalResults: GoalResult[] = [];

export function recordGoal(name: string, value: number, goal: number, kind: GoalResult["kind"] = "at least", floor?: number): GoalResult {
  const result = { name, value, goal, kind, met: kind === "at least" ? value >= goal : value <= goal, floor };
  goalResults.push(result);
  return result;
}

/** The goals recorded so far in this process, in the order they were measured. */
export const recordedGoals = (): readonly GoalResult[] => goalResults;

/**
 * "0.81 (rounds 0.79, 0.81, 0.84; goal at least 0.8: met)"; with `name`, the goal is recorded too,
 * with `floor` (the bare floor's rates of the same rounds) the floor's ratio to the same peer.
 */
export function formatRatio(a: readonly number[], b: readonly number[], goal?: number, name?: string, floor?: readonly number[]): string {
  const ratios = roundRatios(a, b);
  const m = median(ratios);
  if (goal !== undefined && name) recordGoal(name, m, goal, "at least", floor ? medianRatio(floor, b) : undefined);
  const verdict = goal === undefined ? "" : `; goal at least ${goal}: ${m >= goal ? "met" : "NOT met"}`;
  return `${m.toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(", ")}${verdict})`;
}

/** A goal's line of the run's summary, with the bare floor's ratio to the same peer where there is one. */
export function goalLine(g: GoalResult): string {
  const floor = g.floor === undefined ? "baseline is the bare floor" : `bare floor ${g.floor.toFixed(2)} on this machine`;
  return `${g.met ? "met    " : "NOT met"}  ${g.name.padEnd(66)} ${g.value.toFixed(2)} (goal ${g.kind} ${g.goal}; ${floor})`;
}

/** "load 1.25 1.67 1.68": the 1, 5 and 15 minute load averages now. */
export const loadLine = (): string => `load ${loadavg().map((x) => x.toFixed(2)).join(" ")}`;
