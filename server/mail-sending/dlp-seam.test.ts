// The send handlers' DLP seam (a warned send's findings in accept's transaction, a blocked send's
// in one of their own): the shared suite on both backends.
import { backendOn } from "../db/backend.ts";
import { mailOutboxOf } from "../db/mail-outbox-of.ts";
import { SqlDnsRecordRepository } from "../dns/zone-repository.ts";
import { DlpScannerInspector } from "../dlp/dlp-inspector.ts";
import { SqlDlpRepository } from "../dlp/dlp-repository.ts";
import { ScanPool } from "../dlp/scan-pool.ts";
import { systemClock } from "../jobs/clock.ts";
import { SqlMailDomainRepository } from "../maildomains/maildomain-repository.ts";
import { SqlProjectRepository } from "../projects/project-repository.ts";
import { backends } from "../test/backends.ts";
import { describeSendDlp } from "./dlp-seam.contract.ts";
import { SqlSentMessageRepository } from "./sent-message-repository.ts";
import { SqlTemplateRepository } from "./template-repository.ts";

const clock = systemClock;

for (const backend of backends) {
  describeSendDlp(backend, (c, secrets) => {
    const pool = new ScanPool({ threads: 1 });
    const b = backendOn(c.store, clock);
    const dlpLog = new SqlDlpRepository(b.store);
    return {
      backend: b,
      projects: new SqlProjectRepository(c.store),
      mailDomains: new SqlMailDomainRepository(b, secrets),
      zones: new SqlDnsRecordRepository(c.store, () => true),
      messages: new SqlSentMessageRepository(c.store, mailOutboxOf(b), clock),
      templates: new SqlTemplateRepository(c.store),
      dlpLog,
      dlp: new DlpScannerInspector({ repository: dlpLog, pool, backend: b, clock }),
    };
  });
}
