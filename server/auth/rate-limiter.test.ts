// The L1 rate limiter: the shared suite on both backends.
import { backends } from "../test/backends.ts";
import { PgRateLimiter } from "./pg-rate-limiter.ts";
import { describeRateLimiter } from "./rate-limiter.contract.ts";
import { FixedWindowRateLimiter } from "./rate-limiter.ts";

for (const backend of backends) {
  describeRateLimiter(backend, {
    make: (c, now) => (c.backend === "sqlite" ? new FixedWindowRateLimiter(now) : new PgRateLimiter(c.pg, now)),
    sharedAcrossInstances: backend === "postgres",
  });
}
