// The DLP policy and log: the shared suite on both backends.
import { describeDlpRepository } from "./dlp-repository.contract.ts";
import { PgDlpRepository } from "./pg-dlp-repository.ts";
import { SqliteDlpRepository } from "./sqlite-dlp-repository.ts";
import { backends } from "../test/backends.ts";

for (const backend of backends) {
  describeDlpRepository(backend, (c) => {
    if (c.backend === "sqlite") {
      const { db } = c;
      return {
        repo: new SqliteDlpRepository(db),
        // The SQLite write is synchronous inside BEGIN ... COMMIT; fn's awaits resolve at once.
        transaction: async (fn) => {
          db.exec("BEGIN IMMEDIATE");
          try {
            await fn({ kind: "sqlite", db });
            db.exec("COMMIT");
          } catch (error) {
            db.exec("ROLLBACK");
            throw error;
          }
        },
      };
    }
    const { pg } = c;
    return { repo: new PgDlpRepository(pg), transaction: (fn) => pg.tx((t) => fn({ kind: "postgres", c: t })) };
  });
}
