// The inspector's record (the DLP log and its mail.dlp events in the caller's transaction): the
// shared suite on both backends.
import { afterAll } from "vitest";
import { postgresBackend, sqliteBackend } from "../db/backend.ts";
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
import { backends, byBackend } from "../test/backends.ts";
import { DlpScannerInspector } from "./dlp-inspector.ts";
import { describeDlpRecord, type DlpRecordSetup } from "./dlp-record.contract.ts";
import { SqlDlpRepository } from "./dlp-repository.ts";
import { ScanPool } from "./scan-pool.ts";

// record never scans: the pool's threads start on first scan, so none start here.
const pool = new ScanPool({ threads: 1 });
afterAll(() => pool.close());

const make = byBackend<DlpRecordSetup>({
  sqlite: (db) => {
    const jobs = new JobQueue(db, systemClock);
    const backend = sqliteBackend(db, jobs, new EventOutbox(db, jobs, systemClock));
    const repository = new SqlDlpRepository(backend.store);
    return { backend, repository, inspector: new DlpScannerInspector({ repository, pool, backend, clock: systemClock }) };
  },
  postgres: (pg) => {
    const jobs = new PgJobQueue(pg, systemClock);
    const backend = postgresBackend(pg, jobs, new PgEventOutbox(jobs, systemClock));
    const repository = new SqlDlpRepository(backend.store);
    return { backend, repository, inspector: new DlpScannerInspector({ repository, pool, backend, clock: systemClock }) };
  },
});

for (const backend of backends) describeDlpRecord(backend, make);
