// The claim suite (job-claims.contract.ts) on both stores.
import { backends } from "../test/backends.ts";
import { describeJobClaims } from "./job-claims.contract.ts";
import { JobQueue } from "./job-queue.ts";

for (const backend of backends) describeJobClaims(backend, { make: (c, clock) => new JobQueue(c.store, clock) });
