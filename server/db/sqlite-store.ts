// The Store (db/sql.ts) on the embedded SQLite file. node:sqlite runs a statement synchronously
// on the one connection, so a transaction that awaits between its statements would let another
// request's statements run inside it. The connection is therefore held by one transaction at a
// time: a transaction waits for it and keeps it until COMMIT; a statement from outside waits
// while a transaction holds it; statements of the holding transaction's own async context run
// at once. Interleaving is impossible by construction, whatever the callback awaits. The hold
// is per file (every connection of this thread to one file shares it), since SQLite's own lock
// would make a second connection wait synchronously, blocking the thread the first needs.
// Legacy synchronous code (db/database.ts `transaction`) does not take it: it must not run
// while a Store transaction awaits something other than the store.
//
// The price is a promise per statement where node:sqlite needs none, and a queue only while a
// transaction is open (measured in server/README.md, Benchmarks).
import { AsyncLocalStorage } from "node:async_hooks";
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import { otherWriterWatcher } from "./data-version.ts";
import type { Dialect, Param, RunResult, Sql, Store, TxOptions } from "./sql.ts";
import { inSavepoint, type Frame as SavepointFrame } from "./savepoints.ts";
import { prepare } from "./statements.ts";

export const sqliteDialect: Dialect = {
  kind: "sqlite",
  forUpdate: "",
  byteOrder: "",
  indexedBy: (index) => `INDEXED BY ${index}`,
  asciiLower: (expr) => `lower(${expr})`,
  contains: (column) => `instr(${column}, ?) > 0`,
  needle: (text) => text,
  skipLocked: "",
  insertOrder: "rowid",
  jsonArray: (param) => `json_each(${param})`,
  jsonText: (column, path) => `json_extract(${column}, '${path.replace(/'/g, "''")}')`,
  inIntegers: (column, param) => `${column} IN (SELECT value FROM json_each(${param}))`,
  eachKey: (param, table, rows) => `json_each(${param}) k JOIN ${table} j ON j.id IN (${rows("k.value", "id")})`,
};

/** A transaction or a savepoint of one, with the notifications to deliver when the outermost commits. */
interface Frame extends SavepointFrame {
  notes: [string, string][];
}

type Listener = (payload: string | undefined) => void;

/** Who holds a database file in this thread: a transaction, or the waiter it was handed to. */
interface Gate {
  held: boolean;
  waiting: (() => void)[];
}

// One gate per file, shared by every connection of this thread to it (a test's second connection,
// as another process would have one): SQLite's own lock between two connections of one thread
// would make the second's BEGIN wait synchronously (busy_timeout) for a transaction that can only
// go on once the thread is free, and fail after the timeout.
const gates = new Map<string, Gate>();
function gateOf(db: DatabaseSync): Gate {
  const file = db.location();
  if (file === null) return { held: false, waiting: [] }; // in memory: one connection
  let gate = gates.get(file);
  if (!gate) gates.set(file, (gate = { held: false, waiting: [] }));
  return gate;
}

// Parameters as node:sqlite binds them: it refuses booleans.
function bind(params: readonly Param[] | undefined): SQLInputValue[] {
  if (!params) return [];
  let copy: SQLInputValue[] | undefined;
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (typeof p === "boolean" || p === undefined) (copy ??= params.slice() as SQLInputValue[])[i] = p === undefined ? null : p ? 1 : 0;
  }
  return copy ?? (params as SQLInputValue[]);
}

export class SqliteStore implements Store {
  readonly dialect = sqliteDialect;
  /** The connection, for db/ code that is SQLite's own (migrations, data_version). */
  readonly db: DatabaseSync;
  private readonly context = new AsyncLocalStorage<Frame>();
  /** The file's gate: held while a transaction holds it or it has been handed to the next waiter. */
  private readonly gate: Gate;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly statements = new Map<string, StatementSync>();
  /** The connection's own setting (FULL), restored after a relaxed commit. */
  private readonly synchronous: number;

  constructor(db: DatabaseSync) {
    this.db = db;
    this.gate = gateOf(db);
    this.synchronous = (db.prepare("PRAGMA synchronous").get() as { synchronous: number }).synchronous;
  }

  // The three statements run at once when the connection is free or held by the caller's own
  // transaction (the common case: no closure, one settled promise); otherwise in turn.
  all<R>(sql: string, params?: readonly Param[]): Promise<R[]> {
    if (this.gate.held && !this.open()) return this.inTurn(() => this.prepared(sql).all(...bind(params)) as R[]);
    try {
      return Promise.resolve(this.prepared(sql).all(...bind(params)) as R[]);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  get<R>(sql: string, params?: readonly Param[]): Promise<R | undefined> {
    if (this.gate.held && !this.open()) return this.inTurn(() => this.prepared(sql).get(...bind(params)) as R | undefined);
    try {
      return Promise.resolve(this.prepared(sql).get(...bind(params)) as R | undefined);
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  run(sql: string, params?: readonly Param[]): Promise<RunResult> {
    if (this.gate.held && !this.open()) return this.inTurn(() => ({ changes: Number(this.prepared(sql).run(...bind(params)).changes) }));
    try {
      return Promise.resolve({ changes: Number(this.prepared(sql).run(...bind(params)).changes) });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  // Inside a transaction a failure fails it, as one statement's does (on PostgreSQL the whole
  // transaction is then aborted, so no caller goes on after it without a savepoint of its own);
  // outside one, the step is made atomic by a savepoint of its own.
  runAll(statements: readonly (readonly [string, (readonly Param[])?])[]): Promise<void> {
    const inside = this.open() !== undefined;
    return this.statement(() => {
      const run = (sql: string) => prepare(this.db, sql).run();
      if (!inside) run("SAVEPOINT run_all");
      try {
        for (const [sql, params] of statements) prepare(this.db, sql).run(...bind(params));
      } catch (error) {
        if (!inside) run("ROLLBACK TO run_all");
        throw error;
      } finally {
        if (!inside) run("RELEASE run_all");
      }
    });
  }

  exec(sql: string): Promise<void> {
    return this.statement(() => this.db.exec(sql));
  }

  lock(): Promise<void> {
    return Promise.resolve();
  }

  notify(channel: string, payload = ""): Promise<void> {
    const frame = this.open();
    if (frame) frame.notes.push([channel, payload]);
    else setImmediate(() => this.deliver([[channel, payload]]));
    return Promise.resolve();
  }

  async transaction<T>(fn: (tx: Sql) => Promise<T>, options: TxOptions = {}): Promise<T> {
    const parent = this.open();
    if (parent) return this.savepoint(parent, fn);
    await this.acquire();
    const frame: Frame = { open: true, notes: [], chain: Promise.resolve(), running: 0, depth: 0 };
    const run = (sql: string) => prepare(this.db, sql).run();
    try {
      if (options.relaxed) run("PRAGMA synchronous = NORMAL");
      run("BEGIN IMMEDIATE");
      let result: T;
      try {
        result = await this.context.run(frame, () => fn(this));
        run("COMMIT");
      } catch (error) {
        if (this.db.isTransaction) run("ROLLBACK");
        throw error;
      } finally {
        frame.open = false;
      }
      if (frame.notes.length) setImmediate(() => this.deliver(frame.notes));
      return result;
    } finally {
      if (options.relaxed) run(`PRAGMA synchronous = ${this.synchronous}`);
      this.release();
    }
  }

  async listen(channel: string, fn: Listener): Promise<() => void> {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    set.add(fn);
    return () => void set.delete(fn);
  }

  // Any channel: data_version reports every commit by another connection.
  async changes(_channel?: string): Promise<() => boolean> {
    return otherWriterWatcher(this.db);
  }

  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close();
  }

  /** Whether the caller's async context is inside a transaction of this store. */
  inTransaction(): boolean {
    return this.open() !== undefined;
  }

  /** The open transaction (or savepoint) of the caller's async context. */
  private open(): Frame | undefined {
    const frame = this.context.getStore();
    return frame?.open ? frame : undefined;
  }

  /** This connection's prepared statement for `sql`, cached on the store (one map lookup). */
  private prepared(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = prepare(this.db, sql)));
    return statement;
  }

  private statement<T>(work: () => T): Promise<T> {
    if (!this.gate.held || this.open()) {
      try {
        return Promise.resolve(work());
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    return this.inTurn(work);
  }

  /** A transaction of another context holds the connection: run after it, in turn. */
  private inTurn<T>(work: () => T): Promise<T> {
    return this.acquire().then(() => {
      try {
        return work();
      } finally {
        this.release();
      }
    });
  }

  private acquire(): Promise<void> {
    if (!this.gate.held) {
      this.gate.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.gate.waiting.push(resolve));
  }

  /** Hands the file to the next waiter (it stays held), or frees it. */
  private release(): void {
    const next = this.gate.waiting.shift();
    if (next) next();
    else this.gate.held = false;
  }

  private savepoint<T>(parent: Frame, fn: (tx: Sql) => Promise<T>): Promise<T> {
    return inSavepoint(
      parent,
      {
        frame: (depth) => ({ open: true, notes: [], chain: Promise.resolve(), running: 0, depth }),
        exec: (sql) => this.prepared(sql).run(),
        enter: (frame, run) => this.context.run(frame, run),
        released: (child) => parent.notes.push(...child.notes),
      },
      () => fn(this),
    );
  }

  private deliver(notes: [string, string][]): void {
    for (const [channel, payload] of notes) this.listeners.get(channel)?.forEach((fn) => fn(payload));
  }
}

const stores = new WeakMap<DatabaseSync, SqliteStore>();

/**
 * The one Store of a connection: its lock and its transactions' context must be shared by every
 * repository on the connection, so each connection has exactly one.
 */
export function storeOnSqlite(db: DatabaseSync): SqliteStore {
  let store = stores.get(db);
  if (!store) stores.set(db, (store = new SqliteStore(db)));
  return store;
}
