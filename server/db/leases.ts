// Who holds a lease (a claimed job), the one rule that differs between the stores for the job
// queue (server/jobs/README.md), written here once so the queue's SQL is one text for both.
// SQLite: one server process owns the file, so a lease binds until it runs out, and the process
// releases every lease when it starts (they were its dead predecessor's). PostgreSQL: several
// instances share the queue; a lease names its holder (`leased_by`, the instance's
// application_name) and is void as soon as that holder has no session left (killed), so the
// others take its jobs at once, and no instance may release leases at start.
import { PostgresStore } from "./postgres/postgres-store.ts";
import type { Sql } from "./sql.ts";

export interface LeaseRule {
  /** A condition with one `?` (now): the row's lease binds no one. */
  readonly void: string;
  /** SET items leasing a row to this instance until the one `?`. */
  readonly take: string;
  /** SET items giving a row's lease back. */
  readonly give: string;
  /** A condition: the row's lease is this instance's. */
  readonly mine: string;
  /** One process owns the store: every lease found at start is stale. */
  readonly ownedAlone: boolean;
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

export function leaseRule(store: Sql): LeaseRule {
  if (store instanceof PostgresStore) {
    const me = literal(store.pg.instanceName);
    return {
      void: `(lease_until IS NULL OR lease_until <= ?
        OR leased_by NOT IN (SELECT application_name FROM pg_stat_activity WHERE application_name IS NOT NULL))`,
      take: `lease_until = ?, leased_by = ${me}`,
      give: "lease_until = NULL, leased_by = NULL",
      mine: `leased_by = ${me}`,
      ownedAlone: false,
    };
  }
  return { void: "(lease_until IS NULL OR lease_until <= ?)", take: "lease_until = ?", give: "lease_until = NULL", mine: "1 = 1", ownedAlone: true };
}
