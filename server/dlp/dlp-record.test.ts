// The inspector's record (the DLP log and its mail.dlp events in the caller's transaction): the
// shared suite on both backends.
import { afterAll } from "vitest";
import { backendOn } from "../db/backend.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { systemClock } from "../jobs/clock.ts";
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
    const backend = backendOn(storeOnSqlite(db), systemClock);
    const repository = new SqlDlpRepository(backend.store);
    return { backend, repository, inspector: new DlpScannerInspector({ repository, pool, backend, clock: systemClock }) };
  },
  postgres: (pg) => {
    const backend = backendOn(storeOnPostgres(pg), systemClock);
    const repository = new SqlDlpRepository(backend.store);
    return { backend, repository, inspector: new DlpScannerInspector({ repository, pool, backend, clock: systemClock }) };
  },
});

for (const backend of backends) describeDlpRecord(backend, make);
