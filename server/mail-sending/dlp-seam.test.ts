// The send handlers' DLP seam (a warned send's findings in accept's transaction, a blocked send's
// in one of their own): the shared suite on both backends.
import { postgresBackend, sqliteBackend } from "../db/backend.ts";
import { SqlDnsRecordRepository } from "../dns/zone-repository.ts";
import { DlpScannerInspector } from "../dlp/dlp-inspector.ts";
import { SqlDlpRepository } from "../dlp/dlp-repository.ts";
import { ScanPool } from "../dlp/scan-pool.ts";
import { EventOutbox } from "../events/event-outbox.ts";
import { PgEventOutbox } from "../events/pg-event-outbox.ts";
import { systemClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { SqlMailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { storeOnPostgres } from "../db/postgres/postgres-store.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { backends } from "../test/backends.ts";
import { postgresMailOutbox } from "../db/postgres/pg-services.ts";
import { sqliteMailOutbox } from "../db/sqlite-services.ts";
import { describeSendDlp } from "./dlp-seam.contract.ts";
import { SqlSentMessageRepository } from "./sent-message-repository.ts";
import { SqlTemplateRepository } from "./template-repository.ts";

const clock = systemClock;

for (const backend of backends) {
  describeSendDlp(backend, (c, secrets) => {
    const pool = new ScanPool({ threads: 1 });
    if (c.backend === "sqlite") {
      const { db } = c;
      const jobs = new JobQueue(db, clock);
      const events = new EventOutbox(db, jobs, clock);
      const b = sqliteBackend(db, jobs, events);
      const dlpLog = new SqlDlpRepository(b.store);
      return {
        backend: b, projects: new SqlProjectRepository(storeOnSqlite(db)), mailDomains: new SqlMailDomainRepository(b, secrets),
        zones: new SqlDnsRecordRepository(c.store, () => true),
        messages: new SqlSentMessageRepository(c.store, sqliteMailOutbox(jobs, events), clock), templates: new SqlTemplateRepository(c.store),
        dlpLog, dlp: new DlpScannerInspector({ repository: dlpLog, pool, backend: b, clock }),
      };
    }
    const { pg } = c;
    const jobs = new PgJobQueue(pg, clock);
    const events = new PgEventOutbox(jobs, clock);
    const b = postgresBackend(pg, jobs, events);
    const dlpLog = new SqlDlpRepository(b.store);
    return {
      backend: b, projects: new SqlProjectRepository(storeOnPostgres(pg)), mailDomains: new SqlMailDomainRepository(b, secrets),
      zones: new SqlDnsRecordRepository(c.store, () => true),
      messages: new SqlSentMessageRepository(c.store, postgresMailOutbox(storeOnPostgres(pg), jobs, events), clock), templates: new SqlTemplateRepository(c.store),
      dlpLog, dlp: new DlpScannerInspector({ repository: dlpLog, pool, backend: b, clock }),
    };
  });
}
