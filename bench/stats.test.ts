import { describe, expect, it } from "vitest";
import { formatRatio, median, medianInterval, medianRatio, roundRatios } from "./stats.ts";

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

  it("bounds the median by the sign test's order statistics: 95 % or more, none below 6 rounds", () => {
    expect(medianInterval([1, 2, 3, 4, 5])).toBeUndefined();
    // n = 6: P(B = 0) = 1/64 <= 2.5 %, P(B <= 1) = 7/64 is not: the extremes.
    expect(medianInterval([6, 1, 5, 2, 4, 3])).toEqual([1, 6]);
    // n = 12: P(B <= 2) = 79/4096 = 1.9 %, P(B <= 3) = 299/4096 = 7.3 %: the 3rd from each end.
    expect(medianInterval([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1])).toEqual([3, 10]);
    // n = 20: P(B <= 5) = 2.1 %, P(B <= 6) = 5.8 %: the 6th from each end.
    expect(medianInterval(Array.from({ length: 20 }, (_, i) => i + 1))).toEqual([6, 15]);
  });
});
