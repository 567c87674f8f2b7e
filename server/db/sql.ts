// The one store interface every repository is written against (issue 37, decision P6): SQL text
// written once with `?` placeholders, run on the embedded SQLite file or on PostgreSQL. What
// differs between the two lives behind this interface, in db/ only: placeholders, parameter
// and row encodings (booleans, BLOBs), transactions, locks and change notifications. Domain code
// and handlers see promises alone and never ask which store they run on.
//
// The transaction a call runs in follows the async context: a statement run through the store
// while a `transaction` callback of the same context is open joins that transaction (on SQLite
// it would otherwise wait for the lock its own transaction holds; on PostgreSQL it would run on
// another connection and miss the uncommitted rows). Passing `tx` explicitly reads better and is
// what repositories whose methods join a caller's write do; the ambient rule makes forgetting it
// harmless.

/** What a statement takes: booleans are stored as 0/1 on SQLite and as BOOLEAN on PostgreSQL. */
export type Param = string | number | bigint | boolean | null | Uint8Array;

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

export interface TxOptions {
  /**
   * PostgreSQL: the isolation level (default read committed; row locks and atomic statements make
   * that enough for most writes). SQLite has one writer at a time: every transaction is serializable.
   */
  isolation?: "read committed" | "repeatable read" | "serializable";
  /** PostgreSQL: runs fn again after a serialization failure or a deadlock, at most this often (default 5). */
  retries?: number;
  /**
   * Bookkeeping whose loss by a power cut only makes at-least-once work run again (job leases and
   * outcomes): on SQLite the commit does not wait for the disk (synchronous = NORMAL for this
   * commit; in WAL mode it still survives kill -9); on PostgreSQL synchronous_commit is off for
   * it (a crash of the database server may take the last few such commits, never an instance's kill -9).
   */
  relaxed?: boolean;
}

/** A connection or an open transaction: statements, nested transactions (savepoints), locks. */
export interface Sql {
  readonly dialect: Dialect;
  /** Every row of one statement. */
  all<R>(sql: string, params?: readonly Param[]): Promise<R[]>;
  /** The first row of one statement, or undefined. */
  get<R>(sql: string, params?: readonly Param[]): Promise<R | undefined>;
  /** One statement for its effect. */
  run(sql: string, params?: readonly Param[]): Promise<RunResult>;
  /**
   * Several writes as one step, in order, for their effect: on PostgreSQL one statement (the
   * first ones as data-modifying WITH items), so one round trip where each would take its own;
   * on SQLite one after the other. All see the rows as they were before the step (PostgreSQL runs
   * the items on one snapshot): no statement may read or change what another of the step writes
   * (foreign keys between them are fine: they are checked at the end of the step). Atomic: inside
   * a transaction a failure fails it as any statement's does. The last statement must not have
   * a WITH of its own. Decision P10.
   */
  runAll(statements: readonly (readonly [sql: string, params?: readonly Param[]])[]): Promise<void>;
  /** Several statements without parameters (schema changes). */
  exec(sql: string): Promise<void>;
  /**
   * Runs fn in one transaction and commits when it resolves; rolls back when it throws. Inside an
   * open transaction it is a savepoint of that one: a throw undoes fn's writes only. On PostgreSQL
   * fn may run again after a serialization failure, so it does database work only.
   */
  transaction<T>(fn: (tx: Sql) => Promise<T>, options?: TxOptions): Promise<T>;
  /**
   * Inside a transaction: orders it after every other transaction that locks the same scope (a
   * count and the insert it bounds, decision L3). PostgreSQL: a transaction-scoped advisory lock;
   * SQLite: nothing to do, a write transaction already holds the one write lock.
   */
  lock(scope: string): Promise<void>;
  /**
   * Tells every listener of channel (store.listen), on this instance and every other one, once the
   * surrounding transaction commits (at once outside one). PostgreSQL: NOTIFY; SQLite: the
   * listeners of this process (another process sees commits through `changes`).
   */
  notify(channel: string, payload?: string): Promise<void>;
}

export interface Store extends Sql {
  /**
   * Calls fn with the payload of every notify on channel, and with `undefined` when the store may
   * have missed some (PostgreSQL's listening session was lost or came back).
   */
  listen(channel: string, fn: (payload: string | undefined) => void): Promise<() => void>;
  /**
   * A function answering true once after each change another writer may have made to what
   * channel covers: the caches' invalidation. SQLite: data_version (any commit by another
   * connection, read once per turn); PostgreSQL: a notify on channel, and always while the
   * listening session is down.
   */
  changes(channel: string): Promise<() => boolean>;
  close(): Promise<void>;
}

/** The few spellings that differ; repositories put them into their SQL text. */
export interface Dialect {
  readonly kind: "sqlite" | "postgres";
  /** After a SELECT whose rows the transaction will change: PostgreSQL locks them; SQLite's write transaction holds the whole file. */
  readonly forUpdate: string;
  /** After a SELECT in a claim: PostgreSQL skips rows another transaction holds; SQLite has one writer. */
  readonly skipLocked: string;
  /**
   * The column that orders a table's rows by insertion, for rows whose created_at ties (same
   * millisecond): SQLite's rowid; on PostgreSQL a table that needs it has a `seq BIGSERIAL` column.
   */
  readonly insertOrder: string;
  /** Rows of a JSON array parameter as a table with one column `value`: `SELECT value FROM ${d.jsonArray("?")}`. */
  jsonArray(param: string): string;
  /** Text at a JSON path of a TEXT column holding JSON; path as `$.a.b`. */
  jsonText(column: string, path: string): string;
  /**
   * After a text operand: compare byte for byte (ISO date-times given by a client compared "strictly
   * after" stored ones). PostgreSQL's database collation may not; SQLite's BINARY default does.
   */
  readonly byteOrder: string;
  /**
   * After a table name in FROM: SQLite reads it through this index (its planner, without
   * statistics, may walk another whose order it likes); PostgreSQL plans by its statistics.
   */
  indexedBy(index: string): string;
  /**
   * A test that a text column contains a needle, byte for byte: `contains(column)` with one `?`,
   * bound to `needle(text)`. SQLite: instr(), 1.7 times as fast as LIKE over 100,000 address
   * lists; PostgreSQL: LIKE, which its pg_trgm GIN indexes answer (strpos they cannot).
   */
  contains(column: string): string;
  /** The parameter of `contains` for a needle. */
  needle(text: string): string;
  /** A text with its ASCII letters lowercased and nothing else (SQLite's lower(); PostgreSQL's folds all of Unicode). */
  asciiLower(expr: string): string;
  /**
   * A condition: `column` is one of the integers of a JSON array parameter. PostgreSQL reads them
   * as an array its planner can count (an index scan per id; a join with a set-returning function
   * was planned as a scan of the whole table).
   */
  inIntegers(column: string, param: string): string;
  /**
   * FROM items for a read bounded per key (the first n rows of each group, in index order): for
   * each value `k.value` of the JSON array parameter, the rows of `table` (alias `j`) that the
   * correlated `SELECT ${columns} FROM table ...` written by `rows("k.value", columns)` answers (it
   * may ORDER BY and LIMIT). PostgreSQL: a LATERAL join; SQLite has none, and selects the ids in an
   * IN subquery per key.
   */
  eachKey(param: string, table: string, rows: (key: string, columns: string) => string): string;
}

/** A boolean column as stored: 0/1 on SQLite, true/false on PostgreSQL. */
export const bool = (value: unknown): boolean => value === true || value === 1 || value === 1n;
