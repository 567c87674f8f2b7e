// Turns matches into findings: one per distinct value and place, with a count, so a 10,000-row
// CSV gives a handful of findings rather than 10,000. `mass` is set on every finding of a type at
// a place where that type matched 10 or more times (seed §8). At most 10 distinct values per type
// and place and 100 findings per message are listed; `truncated` says how many were left out.
import type { DlpFinding, DlpType } from "./dlp-port.ts";
import type { Match } from "./detectors/index.ts";

export const MASS_THRESHOLD = 10;
export const MAX_VALUES_PER_PLACE = 10;
export const MAX_FINDINGS = 100;

interface Group {
  total: number;
  values: Map<string, { masked: string; full: boolean; count: number }>;
}

export class FindingCollector {
  private readonly places = new Map<string, Map<DlpType, Group>>();
  private readonly types: ReadonlySet<DlpType>;

  constructor(types: ReadonlySet<DlpType>) {
    this.types = types;
  }

  add(where: string, matches: Iterable<Pick<Match, "type" | "value" | "masked" | "full">>): void {
    let place = this.places.get(where);
    for (const m of matches) {
      if (!this.types.has(m.type)) continue;
      if (!place) this.places.set(where, (place = new Map()));
      let group = place.get(m.type);
      if (!group) place.set(m.type, (group = { total: 0, values: new Map() }));
      group.total++;
      const seen = group.values.get(m.value);
      if (seen) {
        seen.count++;
        seen.full ||= m.full;
      } else group.values.set(m.value, { masked: m.masked, full: m.full, count: 1 });
    }
  }

  /** Something at `where` could not be inspected: reported as `encrypted`, the reason in `masked`. */
  uninspectable(where: string, reason: string): void {
    this.add(where, [{ type: "encrypted", value: reason, masked: reason, full: false }]);
  }

  result(): { findings: DlpFinding[]; truncated: number } {
    const findings: DlpFinding[] = [];
    let truncated = 0;
    for (const [where, place] of this.places) {
      for (const [type, group] of place) {
        const mass = group.total >= MASS_THRESHOLD;
        let listed = 0;
        for (const v of group.values.values()) {
          if (listed >= MAX_VALUES_PER_PLACE || findings.length >= MAX_FINDINGS) {
            truncated++;
            continue;
          }
          listed++;
          findings.push({ type, masked: v.masked, where, full: v.full, mass, count: v.count });
        }
      }
    }
    return { findings, truncated };
  }
}
