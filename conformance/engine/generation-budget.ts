// Every generator that keeps only some of what it draws (a pattern and a length, a case that must
// re-validate) does so within a budget: a fixed number of draws and a time limit per value. When
// the budget runs out the draw throws `GenerationBudgetExceeded` naming the schema pointer it was
// generating; the runner reports it as a warning and goes on with the next operation or phase.
// fast-check's own `.filter` retries forever, which is how one GitHub pattern hung a whole run.
import fc from "fast-check";

/** draws per value before giving up; a generator that works needs a handful */
export const MAX_ATTEMPTS = 500;
/** wall time per value before giving up, for generators whose single draw is slow */
export const MAX_MILLISECONDS = 2_000;

export class GenerationBudgetExceeded extends Error {
  override name = "GenerationBudgetExceeded";
  /** JSON pointer (in the contract, through references) of the schema that could not be met */
  readonly pointer: string;
  readonly attempts: number;
  constructor(pointer: string, attempts: number) {
    super(`no value for ${pointer} within the generation budget (${attempts} draws)`);
    this.pointer = pointer;
    this.attempts = attempts;
  }
}

class BudgetedFilter<T> extends fc.Arbitrary<T> {
  private readonly arb: fc.Arbitrary<T>;
  private readonly keep: (v: T) => boolean;
  private readonly pointer: (rejected: T) => string;
  constructor(arb: fc.Arbitrary<T>, keep: (v: T) => boolean, pointer: (rejected: T) => string) {
    super();
    this.arb = arb;
    this.keep = keep;
    this.pointer = pointer;
  }

  /** set once the budget ran out: the same generator is not given it again and again */
  private exhausted: GenerationBudgetExceeded | undefined;

  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<T> {
    if (this.exhausted) throw this.exhausted;
    const started = performance.now();
    let last: fc.Value<T> | undefined;
    for (let i = 1; i <= MAX_ATTEMPTS; i++) {
      last = this.arb.generate(mrng, biasFactor);
      if (this.keep(last.value)) return last;
      if (performance.now() - started > MAX_MILLISECONDS) throw (this.exhausted = new GenerationBudgetExceeded(this.pointer(last.value), i));
    }
    throw (this.exhausted = new GenerationBudgetExceeded(this.pointer(last!.value), MAX_ATTEMPTS));
  }

  canShrinkWithoutContext(value: unknown): value is T {
    return this.arb.canShrinkWithoutContext(value) && this.keep(value);
  }

  shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
    return this.arb.shrink(value, context).filter((v) => this.keep(v.value));
  }
}

/**
 * `arb.filter(keep)` with a budget. `pointer` names what was being generated, or, given the last
 * rejected value, which part of it broke (a case names its parameter or body property).
 */
export function budgetedFilter<T>(arb: fc.Arbitrary<T>, keep: (v: T) => boolean, pointer: string | ((rejected: T) => string)): fc.Arbitrary<T> {
  return new BudgetedFilter(arb, keep, typeof pointer === "string" ? () => pointer : pointer);
}

/** JSON pointer escaping of one reference token (RFC 6901). */
/** The line a run prints when an operation's values could not be generated. */
export function generationNotice(operationId: string, what: string, error: GenerationBudgetExceeded): string {
  return `${operationId}: ${what} skipped: ${error.message}`;
}

export function pointerToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}
