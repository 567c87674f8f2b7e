import { describe, expect, it } from "vitest";
import { formatRatio, median, medianRatio, roundRatios } from "./stats.ts";

describe("bench stats", () => {
  it("takes the median of an odd and an even number of values", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it("judges the goal on the median of per-round ratios, not the ratio of medians", () => {
    // Round 2 ran while the machine was busy: both targets slowed down together.
    const platform = [80, 40, 82];
    const bare = [100, 50, 100];
    expect(roundRatios(platform, bare)).toEqual([0.8, 0.8, 0.82]);
    expect(medianRatio(platform, bare)).toBe(0.8);
    expect(formatRatio(platform, bare, 0.8)).toBe("0.80 (rounds 0.80, 0.80, 0.82; goal at least 0.8: met)");
    expect(formatRatio([70, 70, 70], bare, 0.8)).toContain("NOT met");
  });
});
