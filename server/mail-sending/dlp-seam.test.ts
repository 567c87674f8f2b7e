// The send handlers' DLP seam (a warned send's findings in accept's transaction, a blocked send's
// in one of their own): the shared suite on both backends.
import { postgresBackend, sqliteBackend } from "../db/backend.ts";
import { PgDnsRecordRepository } from "../dns/pg-zone-repository.ts";
import { SqliteDnsRecordRepository } from "../dns/sqlite-zone-repository.ts";
import { DlpScannerInspector } from "../dlp/dlp-inspector.ts";
import { PgDlpRepository } from "../dlp/pg-dlp-repository.ts";
import { ScanPool } from "../dlp/scan-pool.ts";
import { SqliteDlpRepository } from "../dlp/sqlite-dlp-repository.ts";
import { SyncEventOutbox as EventOutbox } from "../db/legacy-sqlite-outbox.ts";
import { PgEventOutbox } from "../db/postgres/legacy-pg-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { SyncJobQueue as JobQueue } from "../db/legacy-sqlite-outbox.ts";
import { PgJobQueue } from "../db/postgres/legacy-pg-outbox.ts";
import { PgMailDomainRepository } from "../maildomains/pg-maildomain-repository.ts";
import { SqliteMailDomainRepository } from "../maildomains/sqlite-maildomain-repository.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { backends } from "../test/backends.ts";
import { PgSentMessageRepository } from "./pg-sent-message-repository.ts";
import { PgTemplateRepository } from "./pg-template-repository.ts";
import { describeSendDlp } from "./dlp-seam.contract.ts";
import { SqliteSentMessageRepository } from "./sqlite-sent-message-repository.ts";
import { SqliteTemplateRepository } from "./sqlite-template-repository.ts";

const clock = systemClock;

for (const backend of backends) {
  describeSendDlp(backend, (c, secrets) => {
    const pool = new ScanPool({ threads: 1 });
    if (c.backend === "sqlite") {
      const { db } = c;
      const jobs = new JobQueue(db, clock);
      const events = new EventOutbox(db, jobs, clock);
      const b = sqliteBackend(db, jobs, events);
      const dlpLog = new SqliteDlpRepository(db);
      return {
        backend: b, projects: new SqlProjectRepository(storeOnSqlite(db)), mailDomains: new SqliteMailDomainRepository(db, secrets, events),
        zones: new SqliteDnsRecordRepository(db),
        messages: new SqliteSentMessageRepository(db, jobs, clock), templates: new SqliteTemplateRepository(db),
        dlpLog, dlp: new DlpScannerInspector({ repository: dlpLog, pool, backend: b, clock }),
      };
    }
    const { pg } = c;
    const jobs = new PgJobQueue(pg, clock);
    const events = new PgEventOutbox(jobs, clock);
    const b = postgresBackend(pg, jobs, events);
    const dlpLog = new PgDlpRepository(pg);
    return {
      backend: b, projects: new SqlProjectRepository(storeOnPostgres(pg)), mailDomains: new PgMailDomainRepository(pg, secrets, events),
      zones: new PgDnsRecordRepository(pg),
      messages: new PgSentMessageRepository(pg, jobs, clock), templates: new PgTemplateRepository(pg),
      dlpLog, dlp: new DlpScannerInspector({ repository: dlpLog, pool, backend: b, clock }),
    };
  });
}
