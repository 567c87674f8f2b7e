// events.emit: the shared suite on both stores, each inside a caller's transaction.
import { systemClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { backends } from "../test/backends.ts";
import { describeEventOutbox, type EmitIn } from "./event-outbox.contract.ts";
import { EventOutbox } from "./event-outbox.ts";

const emitIn: EmitIn = async (c, projectId, type, data, fail) => {
  const outbox = new EventOutbox(new JobQueue(c.store, systemClock), systemClock);
  return c.store.transaction(async (tx) => {
    const e = await outbox.emit(tx, projectId, type, data);
    if (fail) throw new Error("caller failed");
    return e;
  });
};

for (const backend of backends) describeEventOutbox(backend, emitIn);
