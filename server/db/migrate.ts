// The one migration runner, for both stores. Each pending migration runs once, in version order,
// in its own transaction, and its version is recorded in schema_migrations. The runner is written
// once as a sequence of steps (a generator) and driven two ways: through the Store (PostgreSQL, and
// SQLite wherever an async caller migrates), and synchronously on SQLite's connection, so
// openDatabase keeps returning an open, migrated connection at once, as its callers expect.
//
// Concurrency: on SQLite each migration is a BEGIN IMMEDIATE transaction, which another process
// waits for; on PostgreSQL openPostgres holds an advisory lock across the whole run and every
// migration's transaction also takes one (Sql.lock), so instances starting together migrate once.
// Inside its transaction each migration looks again whether another process applied it meanwhile.
//
// Databases made by the release before one-list migrations (9cecd55) carry that release's
// per-dialect history (db/release-history.ts): they are recognised and the baselines are marked
// applied without running them; a partial older history is refused with what to do.
import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { ddlFor } from "./ddl.ts";
import { noContext, type Migration, type MigrationContext } from "./migration.ts";
import { FIRST_VERSION, releaseHistory, RELEASE } from "./release-history.ts";
import type { Dialect, Param, Sql } from "./sql.ts";

type Step =
  | { op: "all"; sql: string; params?: Param[] }
  | { op: "run"; sql: string; params?: Param[] }
  | { op: "exec"; sql: string }
  | { op: "transaction"; label: string; body: () => Plan<unknown> }
  | { op: "up"; fn: NonNullable<Migration["up"]>; label: string };

type Plan<R> = Generator<Step, R, unknown>;

const LOCK = "schema_migrations";

function* rows<R>(sql: string, params?: Param[]): Plan<R[]> {
  return (yield { op: "all", sql, params }) as R[];
}

/** The statements of m as kind runs them. */
export function statementsOf(m: Migration, kind: Dialect["kind"]): string {
  return [m.sql ? ddlFor(kind, m.sql) : "", m[kind] ?? ""]
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => (s.endsWith(";") ? s : `${s};`))
    .join("\n");
}

function* plan(kind: Dialect["kind"], list: Migration[]): Plan<number[]> {
  yield { op: "exec", sql: "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)" };
  const recorded = new Set((yield* rows<{ version: number }>("SELECT version FROM schema_migrations")).map((r) => Number(r.version)));
  const sorted = [...list].sort((a, b) => a.version - b.version);
  const legacy = [...recorded].filter((v) => v < FIRST_VERSION);
  if (legacy.length) {
    refuseOlderHistory(kind, legacy);
    const baselines = sorted.filter((m) => m.baseline && !recorded.has(m.version));
    if (baselines.length)
      yield {
        op: "transaction",
        label: `marking the baselines of release ${RELEASE} applied`,
        body: function* () {
          for (const m of baselines) yield* record(m, "ON CONFLICT (version) DO NOTHING");
        },
      };
    for (const m of baselines) recorded.add(m.version);
  }
  const ran: number[] = [];
  for (const m of sorted) {
    if (recorded.has(m.version)) continue;
    let applied = false;
    yield {
      op: "transaction",
      label: `migration ${m.version} (${m.name}) failed`,
      body: function* () {
        // Another process may have migrated between our read and the lock.
        if ((yield* rows("SELECT 1 FROM schema_migrations WHERE version = ?", [m.version])).length) return;
        const statements = statementsOf(m, kind);
        if (statements) yield { op: "exec", sql: statements };
        if (m.up) yield { op: "up", fn: m.up, label: `migration ${m.version} (${m.name})` };
        yield* record(m);
        applied = true;
      },
    };
    if (applied) ran.push(m.version);
  }
  return ran;
}

function* record(m: Migration, conflict = ""): Plan<void> {
  yield {
    op: "run",
    sql: `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?) ${conflict}`,
    params: [m.version, m.name, new Date().toISOString()],
  };
}

function refuseOlderHistory(kind: Dialect["kind"], legacy: number[]): void {
  const release = releaseHistory[kind];
  const same = legacy.length === release.length && release.every((v) => legacy.includes(v));
  if (!same)
    throw new Error(
      `this ${kind === "sqlite" ? "SQLite" : "PostgreSQL"} database was made by a build older than release ${RELEASE} ` +
        `(schema versions ${[...legacy].sort((a, b) => a - b).join(", ")}): open it once with release ${RELEASE} ` +
        `(git checkout ${RELEASE}, start the server and stop it), then with this one`,
    );
}

/** Applies the migrations not yet recorded, through the store; answers the versions it ran. */
export async function migrate(sql: Sql, list: Migration[], context: MigrationContext = noContext): Promise<number[]> {
  const drive = async <R>(on: Sql, steps: Plan<R>): Promise<R> => {
    let input: unknown;
    for (;;) {
      const next = steps.next(input);
      if (next.done) return next.value;
      const step = next.value;
      if (step.op === "all") input = await on.all(step.sql, step.params);
      else if (step.op === "run") input = await on.run(step.sql, step.params);
      else if (step.op === "exec") input = await on.exec(step.sql);
      else if (step.op === "up") input = await step.fn(on, context);
      else
        input = await on
          .transaction(async (tx) => {
            await tx.lock(LOCK);
            return drive(tx, step.body());
          })
          .catch((error: Error) => {
            throw new Error(`${step.label}: ${error.message}`, { cause: error });
          });
    }
  };
  return drive(sql, plan(sql.dialect.kind, list));
}

/**
 * The same run on SQLite's connection, synchronously (openDatabase). A migration with data
 * changes (`up`) runs through the store only: it is refused here with what to do.
 */
export function migrateSqliteNow(db: DatabaseSync, list: Migration[]): number[] {
  const bind = (params: Param[] = []) => params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p)) as SQLInputValue[];
  const drive = <R>(steps: Plan<R>): R => {
    let input: unknown;
    for (;;) {
      const next = steps.next(input);
      if (next.done) return next.value;
      const step = next.value;
      if (step.op === "all") input = db.prepare(step.sql).all(...bind(step.params));
      else if (step.op === "run") input = db.prepare(step.sql).run(...bind(step.params));
      else if (step.op === "exec") input = db.exec(step.sql);
      else if (step.op === "up") throw new Error(`${step.label} changes data through the store: migrate with migrate(storeOnSqlite(db), ...) before serving`);
      else {
        db.exec("BEGIN IMMEDIATE");
        try {
          input = drive(step.body());
          db.exec("COMMIT");
        } catch (error) {
          if (db.isTransaction) db.exec("ROLLBACK");
          throw new Error(`${step.label}: ${(error as Error).message}`, { cause: error });
        }
      }
    }
  };
  return drive(plan("sqlite", list));
}
