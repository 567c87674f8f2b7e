// What still runs on SQLite only (issue 15). With DATABASE_URL set the server must run every
// repository on PostgreSQL or not start: a mix would split the data across two stores without
// anyone noticing (decision P1). Remove an entry when its area is implemented and wired.
export const missingOnPostgres: readonly string[] = [
  "certificates (handlers, jobs, local CA and ACME callers on PgCertificateRepository: its reads are promises, job writes take the client)",
];

/** Throws, naming what is missing, unless every area runs on PostgreSQL. */
export function assertPostgresComplete(missing: readonly string[] = missingOnPostgres): void {
  if (missing.length === 0) return;
  throw new Error(
    `DATABASE_URL is set, but these areas have no PostgreSQL implementation yet: ${missing.join("; ")}. ` +
      "Unset DATABASE_URL to run on SQLite (DATA_DIR); backends are never mixed.",
  );
}

/**
 * A stand-in for what an area listed above still takes from SQLite, on PostgreSQL: any use throws,
 * naming it. Only reachable when assertPostgresComplete was bypassed.
 */
export function notOnPostgres<T extends object>(what: string): T {
  const refuse = (): never => {
    throw new Error(`${what}: not on PostgreSQL yet (server/db/postgres/coverage.ts)`);
  };
  return new Proxy({}, { get: refuse, set: refuse, has: refuse, apply: refuse }) as T;
}
