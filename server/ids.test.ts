// Ids come from a pool of random bytes refilled 4 KB at a time (341 ids): across refills every id
// is new, well formed, and the alphabet is used evenly (a pool read twice or left zeroed would not be).
import { describe, expect, it } from "vitest";
import { newId } from "./ids.ts";

describe("newId", () => {
  it("gives distinct, well-formed ids across several refills of its pool", () => {
    const ids = Array.from({ length: 5_000 }, () => newId("msg"));
    for (const id of ids) expect(id).toMatch(/^msg_[0-9abcdefghjkmnpqrstvwxyz]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const c of id.slice(4)) counts.set(c, (counts.get(c) ?? 0) + 1);
    // 60,000 characters over 32 letters: 1,875 each on average; a stuck pool would pile onto a few.
    expect(counts.size).toBe(32);
    for (const n of counts.values()) expect(n).toBeGreaterThan(1_500);
  });
});
