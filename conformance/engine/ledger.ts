// Everything a run learns: per operation and check, how often it passed and failed; distinct
// failures; which statuses each operation answered. Reports and the summary line read only this.
import type { Exchange, Failure, Operation } from "./types.ts";

export interface Outcome {
  passed: number;
  failed: number;
}

export interface OperationCoverage {
  operation: Operation;
  cases: number;
  statuses: Map<number, number>;
}

export class Ledger {
  outcomes = new Map<string, Map<string, Outcome>>();
  failures: Failure[] = [];
  /** findings of strict-only checks in a run without --strict-coverage */
  warnings: Failure[] = [];
  /**
   * Things the run could not do and says so instead of hiding them (a value it cannot generate, a
   * media type it cannot send, credentials that seem missing): one line each, printed as WARNING.
   */
  notices: string[] = [];
  coverage = new Map<string, OperationCoverage>();
  /**
   * operation -> check -> why it could not judge (a schema ajv cannot compile). Such a pair is
   * never counted as passed, even if other responses of the operation passed the same check.
   */
  unvalidated = new Map<string, Map<string, string>>();
  requests = 0;
  /** requests that got no response (a timeout, a reset): judged by not_a_server_error only */
  unanswered = new WeakSet<object>();
  /** responses to the normal credentials, how many of them were 401/403, and how many 429 */
  authenticated = { responses: 0, refused: 0, limited: 0 };
  /** requests sent again after waiting out a 429's Retry-After */
  retried = 0;
  /** per operation: answered requests and the time they took (the bench's latency; the runner's order) */
  latency = new Map<string, { answered: number; ms: number }>();

  constructor(operations: Operation[]) {
    for (const op of operations) this.coverage.set(op.id, { operation: op, cases: 0, statuses: new Map() });
  }

  exchange(ex: Exchange) {
    this.requests++;
    if (ex.keyRole === "default" && ex.response.status === 429) this.authenticated.limited++;
    if (ex.response.noResponse !== undefined) this.unanswered.add(ex.request);
    if (ex.response.elapsedMs !== undefined) {
      const l = this.latency.get(ex.operation.id) ?? { answered: 0, ms: 0 };
      l.answered++;
      l.ms += ex.response.elapsedMs;
      this.latency.set(ex.operation.id, l);
    }
    if (ex.keyRole === "default" && ex.response.status) {
      this.authenticated.responses++;
      if (ex.response.status === 401 || ex.response.status === 403) this.authenticated.refused++;
    }
    const cov = this.coverage.get(ex.operation.id);
    if (!cov || ex.probe === "unsupported_method") return;
    cov.cases++;
    // No response is not a status seen (not_a_server_error reports it).
    if (ex.response.noResponse !== undefined) return;
    cov.statuses.set(ex.response.status, (cov.statuses.get(ex.response.status) ?? 0) + 1);
  }

  outcome(operation: string, check: string, ok: boolean) {
    let byCheck = this.outcomes.get(operation);
    if (!byCheck) this.outcomes.set(operation, (byCheck = new Map()));
    const o = byCheck.get(check) ?? { passed: 0, failed: 0 };
    if (ok) o.passed++;
    else o.failed++;
    byCheck.set(check, o);
  }

  /**
   * Schemathesis' warning: when most answers to the normal credentials are 401/403, every check
   * that "passed" only saw the server's front door.
   */
  authNotice(): string | undefined {
    const { responses, refused } = this.authenticated;
    if (responses < 10 || refused * 2 <= responses) return undefined;
    return `most responses were 401/403: are credentials configured? (${refused} of ${responses} responses to the configured credentials; see "credentials" and "keys.all" in the config)`;
  }

  /** Like authNotice: when most answers were 429, the checks mostly saw the rate limiter. */
  rateLimitNotice(): string | undefined {
    const { responses, limited } = this.authenticated;
    if (responses < 10 || limited * 2 <= responses) return undefined;
    return `most responses were 429: the checks mostly saw the rate limiter, not the API (${limited} of ${responses} responses to the configured credentials, after waiting out Retry-After up to 10 s ${this.retried} times); use a key with a higher limit or --rate-limit`;
  }

  /** Adds a notice once. */
  notice(text: string) {
    if (!this.notices.includes(text)) this.notices.push(text);
  }

  unvalidate(operation: string, check: string, reason: string) {
    let byCheck = this.unvalidated.get(operation);
    if (!byCheck) this.unvalidated.set(operation, (byCheck = new Map()));
    if (!byCheck.has(check)) byCheck.set(check, reason);
  }

  /** Records a failure unless the same check already reported one on the operation. */
  failure(f: Failure): boolean {
    this.outcome(f.operation, f.check, false);
    if (this.failures.some((x) => x.check === f.check && x.operation === f.operation)) return false;
    this.failures.push(f);
    return true;
  }

  /** `passed` and `failed` count (operation, check) pairs: a pair fails if it ever failed. */
  totals(): { passed: number; failed: number; unvalidated: number } {
    let passed = 0;
    let failed = 0;
    let unvalidated = 0;
    for (const [op, byCheck] of this.outcomes) {
      for (const [check, o] of byCheck) {
        if (o.failed) failed++;
        else if (this.unvalidated.get(op)?.has(check)) unvalidated++;
        else passed++;
      }
    }
    for (const [op, byCheck] of this.unvalidated) {
      for (const check of byCheck.keys()) if (!this.outcomes.get(op)?.has(check)) unvalidated++;
    }
    return { passed, failed, unvalidated };
  }
}
