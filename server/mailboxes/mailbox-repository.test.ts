// Mailboxes, groups and the cached list: the shared suite on both backends.
import { backends } from "../test/backends.ts";
import { CachedMailboxRepository } from "./cached-mailbox-repository.ts";
import { describeMailboxRepository } from "./mailbox-repository.contract.ts";
import { MAILBOXES_CHANNEL, SqlMailboxRepository } from "./mailbox-repository.ts";

for (const backend of backends)
  describeMailboxRepository(backend, {
    make: (c) => new SqlMailboxRepository(c.store),
    makeCached: async (c) => new CachedMailboxRepository(new SqlMailboxRepository(c.store), await c.store.changes(MAILBOXES_CHANNEL)),
    channel: MAILBOXES_CHANNEL,
  });
