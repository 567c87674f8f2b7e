// Where a test platform keeps its data on each backend: SQLite in the platform's own temporary
// folder (nothing to start), or a throwaway PostgreSQL cluster; a platform on PostgreSQL reads
// its server key from the environment, so one is set for the test and the previous one restored.
import { randomBytes } from "node:crypto";
import { startPostgres } from "../../test/support/postgres.ts";
import type { BackendName } from "./backends.ts";

export interface PlatformDatabase {
  /** For startTestPlatform's config: undefined on SQLite. */
  databaseUrl: string | undefined;
  /** Stops the cluster, if any, and restores PLATFORM_SERVER_KEY. */
  stop(): Promise<void>;
}

export async function platformDatabase(backend: BackendName): Promise<PlatformDatabase> {
  if (backend === "sqlite") return { databaseUrl: undefined, stop: async () => {} };
  const savedKey = process.env.PLATFORM_SERVER_KEY;
  const cluster = await startPostgres();
  const databaseUrl = await cluster.newDatabase();
  process.env.PLATFORM_SERVER_KEY = randomBytes(32).toString("base64");
  return {
    databaseUrl,
    async stop() {
      await cluster.stop();
      if (savedKey === undefined) delete process.env.PLATFORM_SERVER_KEY;
      else process.env.PLATFORM_SERVER_KEY = savedKey;
    },
  };
}
