// Mailboxes, groups and the cached list: the shared suite on both backends.
import { otherWriterWatcher } from "../db/data-version.ts";
import { notifyWatcher } from "../db/postgres/pg.ts";
import { backends, byBackend } from "../test/backends.ts";
import { CachedMailboxRepository } from "./cached-mailbox-repository.ts";
import { describeMailboxRepository } from "./mailbox-repository.contract.ts";
import type { MailboxRepository } from "./mailbox-repository.ts";
import { MAILBOXES_CHANNEL, PgMailboxRepository } from "./pg-mailbox-repository.ts";
import { SqliteMailboxRepository } from "./sqlite-mailbox-repository.ts";

const make = byBackend<MailboxRepository>({ sqlite: (db) => new SqliteMailboxRepository(db), postgres: (pg) => new PgMailboxRepository(pg) });
const makeCached = byBackend<Promise<MailboxRepository>>({
  sqlite: async (db) => new CachedMailboxRepository(new SqliteMailboxRepository(db), otherWriterWatcher(db)),
  postgres: async (pg) => new CachedMailboxRepository(new PgMailboxRepository(pg), await notifyWatcher(pg, MAILBOXES_CHANNEL)),
});
for (const backend of backends) describeMailboxRepository(backend, { make, makeCached, channel: MAILBOXES_CHANNEL });
