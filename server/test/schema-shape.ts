// A database's schema in a normalised form, for comparing the schema two migration histories
// produce: tables with their columns (type, nullability, default, key), constraints, indexes,
// triggers and (PostgreSQL) functions, extensions and unlogged tables. Statement texts are
// compared with whitespace and comments folded, so an ALTER-grown table and a table created in
// its final shape compare equal when they have the same columns; column order is not compared
// (the code names its columns).
import type { DatabaseSync } from "node:sqlite";
import type { Pg } from "../db/postgres/pg.ts";

export type SchemaShape = Record<string, unknown>;

const fold = (sql: string | null) =>
  (sql ?? "")
    .replace(/--[^\n]*/g, "")
    .replace(/\s+/g, " ")
    .replace(/\( /g, "(")
    .replace(/ \)/g, ")")
    .replace(/ ,/g, ",")
    .trim();

/** The CHECK (...) expressions of a CREATE TABLE text, parentheses balanced. */
function checks(sql: string): string[] {
  const out: string[] = [];
  const text = fold(sql);
  for (let at = text.indexOf("CHECK ("); at >= 0; at = text.indexOf("CHECK (", at + 1)) {
    let depth = 0;
    let end = at + 6;
    for (; end < text.length; end++) {
      if (text[end] === "(") depth++;
      else if (text[end] === ")" && --depth === 0) break;
    }
    out.push(text.slice(at, end + 1));
  }
  return out.sort();
}

export function sqliteShape(db: DatabaseSync): SchemaShape {
  const all = <R>(sql: string, ...params: string[]) => db.prepare(sql).all(...params) as R[];
  const shape: SchemaShape = {};
  const tables = all<{ name: string; sql: string }>(
    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name",
  );
  for (const t of tables) {
    const columns = all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>("SELECT * FROM pragma_table_info(?)", t.name)
      .map((c) => `${c.name} ${c.type.toUpperCase()}${c.notnull ? " NOT NULL" : ""}${c.dflt_value !== null ? ` DEFAULT ${c.dflt_value}` : ""}${c.pk ? ` PK${c.pk}` : ""}`)
      .sort();
    const foreign = all<{ table: string; from: string; to: string; on_delete: string }>("SELECT * FROM pragma_foreign_key_list(?)", t.name)
      .map((f) => `${f.from} -> ${f.table}(${f.to ?? ""}) ON DELETE ${f.on_delete}`)
      .sort();
    const indexes = all<{ name: string; unique: number; origin: string }>("SELECT * FROM pragma_index_list(?)", t.name)
      .map((i) => {
        const cols = all<{ name: string }>("SELECT name FROM pragma_index_info(?) ORDER BY seqno", i.name).map((c) => c.name).join(", ");
        if (i.origin !== "c") return `${i.origin === "pk" ? "PRIMARY KEY" : "UNIQUE"} (${cols})`;
        const sql = all<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = ?", i.name)[0].sql;
        return fold(sql);
      })
      .sort();
    shape[`table ${t.name}`] = {
      columns,
      foreign,
      checks: checks(t.sql),
      indexes,
      autoincrement: /AUTOINCREMENT/i.test(t.sql),
      withoutRowid: /WITHOUT ROWID/i.test(t.sql),
    };
  }
  for (const tr of all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"))
    shape[`trigger ${tr.name}`] = fold(tr.sql);
  return shape;
}

export async function postgresShape(db: Pg): Promise<SchemaShape> {
  const shape: SchemaShape = {};
  const tables = await db.query<{ table_name: string; persistence: string }>(
    `SELECT c.relname AS table_name, c.relpersistence AS persistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'schema_migrations' ORDER BY 1`,
  );
  for (const t of tables) {
    const columns = await db.query<{ c: string }>(
      `SELECT column_name || ' ' || data_type || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END
              || COALESCE(' DEFAULT ' || column_default, '') AS c
       FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY 1`,
      [t.table_name],
    );
    const constraints = await db.query<{ c: string }>(
      `SELECT conname || ' ' || pg_get_constraintdef(oid) AS c FROM pg_constraint WHERE conrelid = $1::regclass ORDER BY 1`,
      [`public.${t.table_name}`],
    );
    const indexes = await db.query<{ c: string }>(
      `SELECT indexdef AS c FROM pg_indexes WHERE schemaname = 'public' AND tablename = $1 ORDER BY 1`,
      [t.table_name],
    );
    shape[`table ${t.table_name}`] = {
      columns: columns.map((r) => r.c),
      constraints: constraints.map((r) => r.c),
      indexes: indexes.map((r) => r.c),
      unlogged: t.persistence === "u",
    };
  }
  for (const tr of await db.query<{ name: string; def: string }>(
    "SELECT tgname AS name, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1",
  ))
    shape[`trigger ${tr.name}`] = tr.def;
  for (const f of await db.query<{ name: string; def: string }>(
    `SELECT p.proname AS name, p.prosrc AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') ORDER BY 1`,
  ))
    shape[`function ${f.name}`] = fold(f.def);
  shape.extensions = (await db.query<{ extname: string }>("SELECT extname FROM pg_extension ORDER BY 1")).map((e) => e.extname);
  return shape;
}
