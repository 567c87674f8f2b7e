// The fuzzing phase for one operation. fast-check drives generation; the first time a check fails
// the property fails, and fast-check shrinks the case while the *same* check keeps failing. Then
// fuzzing resumes with the remaining budget, ignoring checks already reported, so one run still
// finds every distinct problem of the operation.
import fc from "fast-check";
import { GenerationBudgetExceeded } from "./generation-budget.ts";
import type { Case, Exchange, Finding, Operation } from "./types.ts";

export interface FuzzDeps {
  /** undefined: an identical request was sent before (not when silent, for shrinking) */
  send(c: Case, silent: boolean): Promise<Exchange | undefined>;
  /** judges an exchange with every response check; records passes and returns fresh findings */
  judge(ex: Exchange): Map<string, Finding[]>;
  /** judges one check only, for shrinking */
  judgeOne(check: string, ex: Exchange): Finding[];
  report(check: string, ex: Exchange, findings: Finding[]): void;
  shouldStop(): boolean;
}

const SHRINK_BUDGET = 60;

export async function fuzzOperation(op: Operation, arb: fc.Arbitrary<Case>, budget: number, seed: number, deps: FuzzDeps): Promise<void> {
  const reported = new Set<string>();
  let remaining = budget;
  for (let round = 0; remaining > 0 && !deps.shouldStop(); round++) {
    let target: string | undefined;
    let smallest: { ex: Exchange; findings: Finding[] } | undefined;
    let runs = 0;
    let shrinkSteps = 0;
    const property = fc.asyncProperty(arb, async (c) => {
      if (target === undefined) {
        runs++;
        const ex = await deps.send(c, false);
        // A repeat of a request already judged: it holds as it held (a draw of the budget all the same).
        if (!ex) return true;
        const fresh = [...deps.judge(ex)].filter(([check]) => !reported.has(check));
        if (!fresh.length) return true;
        [target] = fresh[0];
        smallest = { ex, findings: fresh[0][1] };
        // Other checks failing on the same case are reported as they are, unshrunk.
        for (const [check, findings] of fresh.slice(1)) {
          reported.add(check);
          deps.report(check, ex, findings);
        }
        return false;
      }
      if (++shrinkSteps > SHRINK_BUDGET || deps.shouldStop()) return true;
      const ex = (await deps.send(c, true))!;
      const findings = deps.judgeOne(target, ex);
      if (!findings.length) return true;
      smallest = { ex, findings };
      return false;
    });
    let result;
    try {
      result = await fc.check(property, { seed: seed + round * 7919, numRuns: remaining, maxSkipsPerRun: 1000 });
    } catch (error) {
      // The runner reports what could not be generated, naming the schema.
      if (error instanceof GenerationBudgetExceeded) throw error;
      return; // generation impossible for this schema; coverage and examples still ran
    }
    remaining -= Math.max(runs, 1);
    if (!result.failed || !target || !smallest) return;
    reported.add(target);
    deps.report(target, smallest.ex, smallest.findings);
  }
}
