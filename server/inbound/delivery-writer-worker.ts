// The delivery writer's thread: its own connection to the database and the one delivery
// repository (delivery-repository.ts) on it, with the event outbox writing each copy's
// mail.received in the same transaction. The messages that arrive while a group commits are
// stored by the next storeAll: one commit, one fsync per group. Events and jobs are dated with
// the messages' receive time, which the listener took from the platform's clock (a test's
// manual clock included).
import { parentPort, workerData } from "node:worker_threads";
import { backendOn } from "../db/backend.ts";
import { storeOnSqlite } from "../db/sqlite-store.ts";
import { openDatabase } from "../db/database.ts";
import { SqlDeliveryRepository } from "./delivery-repository.ts";
import type { StoredMessage } from "./stored-message.ts";

export interface StoreRequest {
  id: number;
  message: StoredMessage;
  recipients: string[];
}

const db = openDatabase((workerData as { dataDir: string }).dataDir);
let now = 0;
const clock = { now: () => now };
const repository = new SqlDeliveryRepository(backendOn(storeOnSqlite(db), clock), { countsMessages: false });

let pending: StoreRequest[] = [];
let committing = false;
let closing = false;

/** One storeAll per group: the messages that arrived while the previous group committed. */
async function commitPending(): Promise<void> {
  while (pending.length) {
    const group = pending;
    pending = [];
    // One transaction: the events of its messages carry the group's last receive time.
    now = Math.max(...group.map((r) => r.message.receivedMs));
    try {
      const outcomes = await repository.storeAll(group);
      group.forEach((r, i) => {
        const outcome = outcomes[i];
        if ("error" in outcome) parentPort!.postMessage({ id: r.id, error: (outcome.error as Error).message });
        else parentPort!.postMessage({ id: r.id, copies: outcome.copies });
      });
    } catch (error) {
      // The commit itself failed: nothing of the group is stored.
      for (const r of group) parentPort!.postMessage({ id: r.id, error: (error as Error).message });
    }
  }
  committing = false;
  if (closing) finish();
}

function finish(): void {
  db.close();
  process.exit(0);
}

parentPort!.on("message", (request: StoreRequest | "close") => {
  if (request === "close") {
    // After the messages that came before this are committed.
    closing = true;
    if (!committing) finish();
    return;
  }
  // Structured clone turns the Buffer into a Uint8Array; both stores bind it as bytes.
  pending.push(request);
  if (!committing) {
    committing = true;
    // At the end of this turn: the messages of the same turn share the commit.
    setImmediate(() => void commitPending());
  }
});
