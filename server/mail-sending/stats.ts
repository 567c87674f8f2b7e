// The stats answer from the funnel counts (seed §4 rule 3, decision S7): rates are percentages of
// messages handed to a relay, open and click rates of delivered ones; health warns at 80 % of the
// relay provider's thresholds (bounce 5 %, complaint 0.1 %).
import type { FunnelCounts } from "./message-repository.ts";

const BOUNCE_LIMIT = 5;
const COMPLAINT_LIMIT = 0.1;
const WARN_AT = 0.8;

const pct = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100);

export function mailStats(days: number, f: FunnelCounts) {
  const rates = {
    bounce: pct(f.bounced, f.accepted),
    softBounce: pct(f.softBounced, f.accepted),
    complaint: pct(f.complained, f.accepted),
    delivery: pct(f.delivered, f.accepted),
    open: pct(f.opened, f.delivered),
    click: pct(f.clicked, f.delivered),
  };
  const problems: string[] = [];
  let health: "ok" | "warning" | "critical" = "ok";
  for (const [name, rate, limit] of [["bounce", rates.bounce, BOUNCE_LIMIT], ["complaint", rates.complaint, COMPLAINT_LIMIT]] as const) {
    if (rate >= limit) {
      health = "critical";
      problems.push(`The ${name} rate is ${rate} %, at or above the relay provider's limit of ${limit} %.`);
    } else if (rate >= limit * WARN_AT) {
      if (health === "ok") health = "warning";
      problems.push(`The ${name} rate is ${rate} %, close to the relay provider's limit of ${limit} %.`);
    }
  }
  const { total, ...counts } = f;
  return { days, total, funnel: counts, rates, health, problems };
}
