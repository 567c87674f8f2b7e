// The PostgreSQL handle every Pg* repository takes (decision P1 in docs/decisions.md): a pool,
// transactions that retry when PostgreSQL asks for it, and one listening session per instance
// that carries NOTIFY (cache invalidation across instances) and marks the instance alive (job
// leases, server/db/leases.ts).
import { randomBytes } from "node:crypto";
import pg from "pg";

/** A pool or a transaction's client: repositories write through the caller's transaction with it. */
export type Queryable = Pick<pg.PoolClient, "query">;

export type Isolation = "read committed" | "repeatable read" | "serializable";

export interface TxOptions {
  /** Default read committed; row locks and atomic statements make that enough for most writes. */
  isolation?: Isolation;
  /** Runs again after a serialization failure or a deadlock, at most this many times (default 5). */
  retries?: number;
  /**
   * Statements sent in the COMMIT's own round trip, after fn resolved (the store's deferred
   * notifications): an enqueue then costs no round trip of its own for waking the workers.
   */
  beforeCommit?: () => string;
  /** synchronous_commit off for this transaction (set in BEGIN's round trip): see db/sql.ts TxOptions.relaxed. */
  relaxed?: boolean;
}

export interface Pg {
  readonly pool: pg.Pool;
  /** `platform:<random>`, the application_name of every session of this instance. */
  readonly instanceName: string;
  /** One statement on a pooled connection, outside any transaction. */
  query<R>(sql: string, params?: unknown[]): Promise<R[]>;
  /**
   * Runs fn in one transaction and commits; rolls back when it throws. fn may run more than once
   * (see `retries`), so it must do nothing but database work.
   */
  tx<T>(fn: (c: pg.PoolClient) => Promise<T>, options?: TxOptions): Promise<T>;
  /**
   * Calls fn with the payload of every NOTIFY on channel, from this instance or any other, and
   * with `undefined` when the listening session was lost or came back: anything may have changed
   * meanwhile. Resolves once LISTEN is in effect.
   */
  listen(channel: string, fn: (payload: string | undefined) => void): Promise<() => void>;
  /** False while the listening session is down (caches must not trust themselves then). */
  listening(): boolean;
  close(): Promise<void>;
}

/** Answers the rows of one statement. */
export async function rows<R>(q: Queryable, sql: string, params: unknown[] = []): Promise<R[]> {
  return (await q.query(sql, params)).rows as R[];
}

/** Queues a notification on channel; sent when the surrounding transaction commits. */
export async function notify(q: Queryable, channel: string, payload = ""): Promise<void> {
  await q.query("SELECT pg_notify($1, $2)", [channel, payload]);
}

// BIGINT columns hold epoch milliseconds and serial ids, all far below 2^53: numbers, not strings.
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 && format !== "binary" ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

const retryable = (error: unknown) => ["40001", "40P01"].includes((error as { code?: string }).code ?? "");

export interface PgOptions {
  /** Pool size per instance (default 10). */
  max?: number;
}

/** Connects (pool and listening session); does not migrate: see openPostgres in migrations.ts. */
export async function connectPostgres(url: string, options: PgOptions = {}): Promise<Pg> {
  const instanceName = `platform:${randomBytes(6).toString("hex")}`;
  const config = { connectionString: url, application_name: instanceName, types };
  const pool = new pg.Pool({ ...config, max: options.max ?? 10 });
  // An idle pooled connection that breaks is dropped by the pool; without a listener the error
  // would end the process.
  pool.on("error", () => {});

  const handlers = new Map<string, Set<(payload: string | undefined) => void>>();
  let listener: pg.Client | undefined;
  let up = false;
  let closed = false;
  let reconnect: NodeJS.Timeout | undefined;
  const everyone = () => handlers.forEach((set) => set.forEach((fn) => fn(undefined)));

  async function openListener(): Promise<void> {
    const client = new pg.Client(config);
    client.on("notification", (n) => handlers.get(n.channel)?.forEach((fn) => fn(n.payload ?? "")));
    client.on("error", () => lost(client));
    client.on("end", () => lost(client));
    await client.connect();
    for (const channel of handlers.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
    listener = client;
    up = true;
  }

  function lost(client: pg.Client): void {
    if (listener !== client) return;
    listener = undefined;
    up = false;
    everyone();
    client.end().catch(() => {});
    if (!closed) scheduleReconnect();
  }

  function scheduleReconnect(): void {
    clearTimeout(reconnect);
    reconnect = setTimeout(() => {
      openListener().then(everyone, () => !closed && scheduleReconnect());
    }, 500);
    reconnect.unref();
  }

  await openListener();

  return {
    pool,
    instanceName,
    async query<R>(sql: string, params: unknown[] = []) {
      return (await pool.query(sql, params)).rows as R[];
    },
    async tx<T>(fn: (c: pg.PoolClient) => Promise<T>, txOptions: TxOptions = {}): Promise<T> {
      const retries = txOptions.retries ?? 5;
      for (let attempt = 0; ; attempt++) {
        const c = await pool.connect();
        let broken: Error | undefined;
        try {
          const begin = txOptions.isolation ? `BEGIN ISOLATION LEVEL ${txOptions.isolation.toUpperCase()}` : "BEGIN";
          await c.query(txOptions.relaxed ? `${begin}; SET LOCAL synchronous_commit = off` : begin);
          const result = await fn(c);
          await c.query(`${txOptions.beforeCommit?.() ?? ""}COMMIT`);
          return result;
        } catch (error) {
          await c.query("ROLLBACK").catch((e: Error) => (broken = e));
          if (attempt < retries && retryable(error)) continue;
          throw error;
        } finally {
          c.release(broken);
        }
      }
    },
    async listen(channel, fn) {
      let set = handlers.get(channel);
      if (!set) {
        handlers.set(channel, (set = new Set()));
        if (listener) await listener.query(`LISTEN ${quoteIdent(channel)}`);
      }
      set.add(fn);
      return () => void set.delete(fn);
    },
    listening: () => up,
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(reconnect);
      const l = listener;
      listener = undefined;
      up = false;
      await l?.end().catch(() => {});
      await pool.end();
    },
  };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * A function that answers true once after each NOTIFY on channel, and on every call while the
 * listening session is down: the PostgreSQL counterpart of db/data-version.ts's
 * otherWriterWatcher, for the Cached* repositories.
 */
export async function notifyWatcher(db: Pg, channel: string): Promise<() => boolean> {
  let changed = false;
  await db.listen(channel, () => (changed = true));
  return () => {
    if (!db.listening()) return true;
    if (!changed) return false;
    changed = false;
    return true;
  };
}
