// The Store (db/sql.ts) on PostgreSQL: SQL text with `?` placeholders becomes `$1, $2, ...` once
// per text, and each such text is a named statement, so every pooled session parses and plans it
// once (a claim or a send runs a few statements per transaction, and their planning cost as much
// as their execution). Transactions run on one pooled client, retried on serialization failures.
import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";
import type { Dialect, Param, RunResult, Sql, Store, TxOptions } from "../sql.ts";
import { inSavepoint, type Frame as SavepointFrame } from "../savepoints.ts";
import { notifyWatcher, type Pg, type Queryable } from "./pg.ts";

export const postgresDialect: Dialect = {
  kind: "postgres",
  forUpdate: "FOR UPDATE",
  byteOrder: 'COLLATE "C"',
  indexedBy: () => "",
  contains: (column) => `${column} LIKE ? ESCAPE '\\'`,
  // Its wildcards taken literally: the needle is matched anywhere, as it is.
  needle: (text) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`,
  asciiLower: (expr) => `translate(${expr}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`,
  skipLocked: "FOR UPDATE SKIP LOCKED",
  insertOrder: "seq",
  jsonArray: (param) => `json_array_elements_text(${param}::json)`,
  jsonText: (column, path) => `(${column}::jsonb #>> '{${path.replace(/^\$\.?/, "").split(".").join(",").replace(/'/g, "''")}}')`,
  // The JSON array as an array literal, an immutable expression: a custom plan folds it to a
  // constant and knows how many ids there are.
  inIntegers: (column, param) => `${column} = ANY(CAST(translate(${param}, '[]', '{}') AS BIGINT[]))`,
  eachKey: (param, _table, rows) => `json_array_elements_text(${param}::json) k CROSS JOIN LATERAL (${rows("k.value", "*")}) j`,
};

interface Compiled {
  name: string | undefined;
  text: string;
}

/** Texts seen at most this many: a text built per call (an IN list) must not grow every session's plan cache. */
const NAMED_TEXTS = 4096;
const compiled = new Map<string, Compiled>();
let counter = 0;

/**
 * `?` to `$n`, outside string literals, quoted identifiers and comments. The jsonb operators
 * `?`, `?|` and `?&` cannot be written (use jsonb_exists and friends).
 */
export function toPositional(sql: string): string {
  let out = "";
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      const end = sql.indexOf(ch, i + 1);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (ch === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (ch === "?") out += `$${++n}`;
    else out += ch;
  }
  return out;
}

function compile(sql: string): Compiled {
  let c = compiled.get(sql);
  if (!c) {
    c = { name: compiled.size < NAMED_TEXTS ? `q${++counter}` : undefined, text: toPositional(sql) };
    if (c.name) compiled.set(sql, c);
  }
  return c;
}

// pg sends a Buffer as bytea; a plain Uint8Array would be sent as text.
function bind(params: readonly Param[] | undefined): unknown[] {
  if (!params) return [];
  return params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p === undefined ? null : p));
}

interface Frame extends SavepointFrame {
  client: pg.PoolClient;
  /** Notifications of the outermost transaction, sent with its COMMIT (`channel\0payload`, once each as NOTIFY does). */
  notes: Set<string>;
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

export class PostgresStore implements Store {
  readonly dialect = postgresDialect;
  /** The pool and listening session, for db/ code that is PostgreSQL's own (migrations). */
  readonly pg: Pg;
  private readonly context = new AsyncLocalStorage<Frame>();

  constructor(db: Pg) {
    this.pg = db;
  }

  async all<R>(sql: string, params?: readonly Param[]): Promise<R[]> {
    return (await this.query(sql, params)).rows as R[];
  }

  async get<R>(sql: string, params?: readonly Param[]): Promise<R | undefined> {
    return (await this.query(sql, params)).rows[0] as R | undefined;
  }

  async run(sql: string, params?: readonly Param[]): Promise<RunResult> {
    return { changes: (await this.query(sql, params)).rowCount ?? 0 };
  }

  async runAll(statements: readonly (readonly [string, (readonly Param[])?])[]): Promise<void> {
    if (statements.length === 0) return;
    // WITH w1 AS (first), w2 AS (second) last: PostgreSQL runs every data-modifying item once
    // and to completion whether or not the main statement reads it, and fires the foreign-key
    // checks of them all at the end of the statement.
    const items = statements.slice(0, -1).map(([sql], i) => `w${i + 1} AS (${sql})`);
    const text = items.length ? `WITH ${items.join(", ")} ${statements[statements.length - 1][0]}` : statements[0][0];
    await this.query(text, statements.flatMap(([, params]) => params ?? []));
  }

  async exec(sql: string): Promise<void> {
    await this.on().query(sql);
  }

  async lock(scope: string): Promise<void> {
    await this.query("SELECT pg_advisory_xact_lock(hashtext(?))", [scope]);
  }

  async notify(channel: string, payload = ""): Promise<void> {
    // Inside a transaction NOTIFY is delivered at COMMIT anyway: it rides on the COMMIT's round trip.
    const frame = this.open();
    if (frame) frame.notes.add(`${channel}\0${payload}`);
    else await this.query("SELECT pg_notify(?, ?)", [channel, payload]);
  }

  async transaction<T>(fn: (tx: Sql) => Promise<T>, options: TxOptions = {}): Promise<T> {
    const parent = this.open();
    if (parent) return this.savepoint(parent, fn);
    const notes = new Set<string>();
    const beforeCommit = () =>
      [...notes].map((n) => {
        const [channel, payload] = n.split("\0");
        return `SELECT pg_notify(${literal(channel)}, ${literal(payload)}); `;
      }).join("");
    return this.pg.tx(async (client) => {
      notes.clear(); // a retry starts afresh
      const frame: Frame = { open: true, client, chain: Promise.resolve(), running: 0, depth: 0, notes };
      try {
        return await this.context.run(frame, () => fn(this));
      } finally {
        frame.open = false;
      }
    }, { ...options, beforeCommit });
  }

  listen(channel: string, fn: (payload: string | undefined) => void): Promise<() => void> {
    return this.pg.listen(channel, fn);
  }

  changes(channel: string): Promise<() => boolean> {
    return notifyWatcher(this.pg, channel);
  }

  close(): Promise<void> {
    return this.pg.close();
  }

  private open(): Frame | undefined {
    const frame = this.context.getStore();
    return frame?.open ? frame : undefined;
  }

  /** The open transaction's client in the caller's context, else the pool (db/ code only). */
  on(): Queryable {
    return this.open()?.client ?? this.pg.pool;
  }

  private query(sql: string, params?: readonly Param[]): Promise<pg.QueryResult> {
    const { name, text } = compile(sql);
    return this.on().query({ name, text, values: bind(params) } as pg.QueryConfig);
  }

  // A savepoint's notifications join the transaction's when it is released, and are dropped
  // with it when it is rolled back, as NOTIFY's are.
  private savepoint<T>(parent: Frame, fn: (tx: Sql) => Promise<T>): Promise<T> {
    return inSavepoint(
      parent,
      {
        frame: (depth) => ({ open: true, client: parent.client, chain: Promise.resolve(), running: 0, depth, notes: new Set<string>() }),
        exec: (sql) => parent.client.query(sql),
        enter: (frame, run) => this.context.run(frame, run),
        released: (child) => child.notes.forEach((n) => parent.notes.add(n)),
      },
      () => fn(this),
    );
  }
}

const stores = new WeakMap<Pg, PostgresStore>();

/** The one Store of a pool: repositories on it share its transactions' context. */
export function storeOnPostgres(db: Pg): PostgresStore {
  let store = stores.get(db);
  if (!store) stores.set(db, (store = new PostgresStore(db)));
  return store;
}

