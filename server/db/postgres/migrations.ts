// Opening a PostgreSQL database: connect and migrate with the one runner (db/migrate.ts) and the
// one list (db/migrations.ts). Several instances may start at once: the whole run is one
// transaction holding an advisory lock, so the others wait and then find the work done (DDL is
// transactional on PostgreSQL: a failing migration leaves nothing of the run behind).
import { migrate } from "../migrate.ts";
import type { Migration } from "../migration.ts";
import { migrations } from "../migrations.ts";
import { connectPostgres, type Pg, type PgOptions } from "./pg.ts";
import { storeOnPostgres } from "./postgres-store.ts";

/** Applies the migrations not yet recorded, under the migration lock; answers the versions it ran. */
export function migratePostgres(db: Pg, list: Migration[] = migrations): Promise<number[]> {
  return storeOnPostgres(db).transaction(async (tx) => {
    await tx.lock("schema_migrations");
    return migrate(tx, list);
  });
}

/** Connects and migrates: what the server and the tests open a PostgreSQL database with. */
export async function openPostgres(url: string, options: PgOptions = {}): Promise<Pg> {
  const db = await connectPostgres(url, options);
  try {
    await migratePostgres(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
