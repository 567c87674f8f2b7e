// events.emit: the shared suite on both backends, each inside a caller's transaction.
import { transaction } from "../db/database.ts";
import { systemClock } from "../jobs/clock.ts";
import { JobQueue } from "../jobs/job-queue.ts";
import { PgJobQueue } from "../jobs/pg-job-queue.ts";
import { backends } from "../test/backends.ts";
import { describeEventOutbox, type EmitIn } from "./event-outbox.contract.ts";
import { EventOutbox } from "./event-outbox.ts";
import { PgEventOutbox } from "./pg-event-outbox.ts";

const emitIn: EmitIn = async (c, projectId, type, data, fail) => {
  if (c.backend === "sqlite") {
    const outbox = new EventOutbox(c.db, new JobQueue(c.db, systemClock), systemClock);
    return transaction(c.db, () => {
      const e = outbox.emit(projectId, type, data);
      if (fail) throw new Error("caller failed");
      return e;
    });
  }
  const outbox = new PgEventOutbox(new PgJobQueue(c.pg, systemClock), systemClock);
  return c.pg.tx(async (tx) => {
    const e = await outbox.emit(tx, projectId, type, data);
    if (fail) throw new Error("caller failed");
    return e;
  });
};

for (const backend of backends) describeEventOutbox(backend, emitIn);
