// All detectors, in order of precedence: when two matches overlap, the earlier type keeps the
// span (a card number inside a track is a track; digits inside an IBAN are not a passport).
import type { DlpType } from "../dlp-port.ts";
import { detectCards } from "./card.ts";
import { detectConfidential } from "./confidential.ts";
import type { Detector, Match } from "./detector.ts";
import { detectFin } from "./fin.ts";
import { detectIbans } from "./iban.ts";
import { detectPassports } from "./passport.ts";
import { detectSecrets } from "./secret.ts";
import { detectSwift } from "./swift.ts";
import { detectTracks } from "./track.ts";
import { detectVoen } from "./voen.ts";

export type { Match } from "./detector.ts";

/** The types found in text; `encrypted` is reported by extraction, not by a text detector. */
export const TEXT_TYPES = ["secret", "track", "iban", "card", "swift", "voen", "fin", "passport", "confidential"] as const satisfies readonly DlpType[];

const detectors: Record<(typeof TEXT_TYPES)[number], Detector> = {
  secret: detectSecrets,
  track: detectTracks,
  iban: detectIbans,
  card: detectCards,
  swift: detectSwift,
  voen: detectVoen,
  fin: detectFin,
  passport: detectPassports,
  confidential: detectConfidential,
};

export function detect(text: string, types: ReadonlySet<DlpType>): Match[] {
  const kept: Match[] = [];
  // Characters already claimed by a match of an earlier type (a 10,000-row file has 10,000 matches).
  const claimed = new Uint8Array(text.length);
  for (const type of TEXT_TYPES) {
    // Every detector runs (a card inside a track must be found to be suppressed) but only enabled types are reported.
    for (const m of detectors[type](text)) {
      if (claimed.subarray(m.start, m.end).includes(1)) continue;
      claimed.fill(1, m.start, m.end);
      kept.push(m);
    }
  }
  return kept.filter((m) => types.has(m.type)).sort((a, b) => a.start - b.start);
}
