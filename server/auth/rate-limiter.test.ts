// The L1 rate limiters: the shared suite for the in-memory one (SQLite's composition: one process
// owns the file) and for the one counted in the database (PostgreSQL's: every instance shares the
// count), the latter on both stores, since it is written once over Sql.
import { backends } from "../test/backends.ts";
import { describeRateLimiter } from "./rate-limiter.contract.ts";
import { FixedWindowRateLimiter } from "./rate-limiter.ts";
import { StoredRateLimiter } from "./stored-rate-limiter.ts";

describeRateLimiter("sqlite", { name: "in-memory", make: (_c, now) => new FixedWindowRateLimiter(now), sharedAcrossInstances: false });

for (const backend of backends) {
  describeRateLimiter(backend, {
    name: "stored",
    make: (c, now) => new StoredRateLimiter(c.store, now),
    sharedAcrossInstances: true,
    // SQLite's schema has no rate_windows (its composition counts in memory): the suite's store
    // gets PostgreSQL's table, without UNLOGGED. Already there on PostgreSQL.
    prepare: (c) => c.store.exec("CREATE TABLE IF NOT EXISTS rate_windows (key TEXT PRIMARY KEY, window_start BIGINT NOT NULL, count INTEGER NOT NULL)"),
  });
}
