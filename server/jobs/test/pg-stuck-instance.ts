// A second instance for pg-kill.test.ts: claims jobs of kind `stuck` from the PostgreSQL queue
// and never finishes them, printing each job it holds, until the test kills it with SIGKILL.
import { openPostgres } from "../../db/postgres/migrations.ts";
import { systemClock } from "../clock.ts";
import { storeOnPostgres } from "../../db/postgres/postgres-store.ts";
import { JobQueue } from "../job-queue.ts";
import { createWorker } from "../worker.ts";

const db = await openPostgres(process.argv[2], { max: 2 });
const worker = createWorker({
  queue: new JobQueue(storeOnPostgres(db), systemClock),
  clock: systemClock,
  concurrency: Number(process.argv[3]),
  handlers: {
    stuck: async (job) => {
      process.stdout.write(`holding ${(job.payload as { n: number }).n}\n`);
      return new Promise(() => {});
    },
  },
});
worker.start();
