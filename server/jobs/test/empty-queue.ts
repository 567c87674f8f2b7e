// What each job queue test starts from: an empty jobs table on the suite's store, a manual clock
// at its start, and a queue on both.
import type { Store } from "../../db/sql.ts";
import { manualClock, type ManualClock } from "../clock.ts";
import { JobQueue } from "../job-queue.ts";

export async function emptyQueue(store: Store): Promise<{ clock: ManualClock; queue: JobQueue }> {
  await store.exec("DELETE FROM jobs");
  const clock = manualClock();
  return { clock, queue: new JobQueue(store, clock) };
}
