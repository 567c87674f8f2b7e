// The contract between the engine and the checks. A check is one file under conformance/checks/
// exporting a `Check`; it either judges every response (`response`) or drives its own requests
// (`probe`). Returning `null` means "not applicable here", which is counted neither way.
import type { Case, Contract, Exchange, Finding, JsonSchema, KeyRole, Operation, Phase, Severity } from "./types.ts";
import type { ResourceGraph } from "./resources.ts";
import type { ResolvedConfig } from "./config.ts";

export interface SendOptions {
  /** credential to use: a key string, `null` for none; default is the all-scopes key */
  key?: string | null;
  keyRole?: KeyRole;
  method?: string;
  probe?: string;
  /** not shown to the response checks (shrinking replays judge one check themselves) */
  silent?: boolean;
  /** the suite deleting what it created (engine/cleanup.ts): not freshened, never cleaned up itself */
  cleanup?: boolean;
  /** keep what this creates until `flushCleanup(keep)` (parents the cases of an operation use) */
  keep?: string;
}

export interface KeyProvider {
  /** the key holding every scope (may be undefined when the API is open) */
  all?: string;
  /** a key holding exactly these scopes, when the config can make one */
  forScopes(scopes: string[]): Promise<string | undefined>;
  /** revokes the keys forScopes made (the run removes what it made); returns what it could not */
  revokeAll?(): Promise<string[]>;
  otherProject?: string;
  lowLimit?: string;
  invalid: string;
}

export interface CheckContext {
  contract: Contract;
  config: ResolvedConfig;
  seed: number;
  keys: KeyProvider;
  resources: ResourceGraph;
  /** the schema every 4xx/5xx body must satisfy where its operation documents none, if the config names one */
  errorSchema?: JsonSchema;
  send(op: Operation, c: Case, opts?: SendOptions): Promise<Exchange>;
  /**
   * `send`, unless a request with the same mode, method, URL, headers and body is in `seen`: then
   * nothing is sent and it resolves to undefined. The phases that draw cases use it per operation.
   */
  sendNew(op: Operation, c: Case, seen: Set<string>, opts?: SendOptions): Promise<Exchange | undefined>;
  /** a seeded positive case for the operation, fixtures applied */
  sampleCase(op: Operation, salt?: number): Case | undefined;
  operation(id: string): Operation | undefined;
  /** a WARNING line of the run: what a check could not do, said instead of hidden */
  notice(text: string): void;
  /** deletes what the stateful phase created and kept (engine/cleanup.ts) */
  flushCleanup(owner?: string): Promise<void>;
}

/**
 * The check would have judged, but a schema it needs cannot be compiled (validator.ts): neither a
 * pass nor a failure. The (operation, check) pair is reported "unvalidated" with the reason.
 */
export interface Unvalidated {
  unvalidated: string;
}

export function isUnvalidated(x: unknown): x is Unvalidated {
  return Boolean(x && typeof x === "object" && !Array.isArray(x) && typeof (x as Unvalidated).unvalidated === "string");
}

export interface Check {
  name: string;
  title: string;
  severity: Severity;
  /** false when a stateless mock cannot pass it (see README) */
  stateless: boolean;
  /** probes run in this phase; response checks run on every phase */
  phase?: Phase;
  /** opt-in checks run only when named with --checks */
  optIn?: boolean;
  /**
   * Failures only under --strict-coverage; otherwise its findings are printed as warnings, like
   * Schemathesis' "all responses were 4xx".
   */
  strictOnly?: boolean;
  response?(ctx: CheckContext, ex: Exchange): Finding[] | Unvalidated | null;
  /** runs once per operation after every phase, on what the run saw of it */
  final?(ctx: CheckContext, op: Operation, seen: { cases: number; statuses: Map<number, number> }): Finding[] | null;
  probe?(ctx: CheckContext, op: Operation): Promise<Finding[] | Unvalidated | null>;
  /**
   * The scope sets the probe will ask `keys.forScopes` for on this operation: the run makes those
   * keys while the first phases send requests, instead of one at a time inside the probes (a
   * console command per key takes about a second of process start).
   */
  scopeSets?(ctx: CheckContext, op: Operation): string[][];
}
