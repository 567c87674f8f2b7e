// The claim suite (job-claims.contract.ts) on both backends.
import { backends } from "../test/backends.ts";
import { describeJobClaims } from "./job-claims.contract.ts";
import { JobQueue } from "./job-queue.ts";
import { PgJobQueue } from "./pg-job-queue.ts";

for (const backend of backends) {
  describeJobClaims(backend, {
    make: (c, clock) => (c.backend === "sqlite" ? new JobQueue(c.db, clock) : new PgJobQueue(c.pg, clock)),
  });
}
