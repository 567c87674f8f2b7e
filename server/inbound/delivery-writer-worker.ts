// The delivery writer's thread: its own connection to the database, the group-committing
// SqliteDeliveryRepository, and the event outbox writing each copy's mail.received in the same
// transaction. Events and jobs are dated with the message's receive time, which the listener
// took from the platform's clock (a test's manual clock included).
import { parentPort, workerData } from "node:worker_threads";
import { openDatabase } from "../db/database.ts";
import { SyncEventOutbox, SyncJobQueue } from "../db/legacy-sqlite-outbox.ts";
import type { StoredMessage } from "./delivery-repository.ts";
import { emitReceived } from "./received-event.ts";
import { SqliteDeliveryRepository } from "./sqlite-delivery-repository.ts";

export interface StoreRequest {
  id: number;
  message: StoredMessage;
  recipients: string[];
}

const db = openDatabase((workerData as { dataDir: string }).dataDir);
let now = 0;
const clock = { now: () => now };
const events = new SyncEventOutbox(db, new SyncJobQueue(db, clock), clock);
const repository = new SqliteDeliveryRepository(db, (copy, message) => {
  now = message.receivedMs;
  emitReceived(events, copy, message);
});

parentPort!.on("message", (request: StoreRequest | "close") => {
  if (request === "close") {
    // After the group commit already scheduled for the messages that came before this.
    setImmediate(() => {
      db.close();
      process.exit(0);
    });
    return;
  }
  // Structured clone turns the Buffer into a Uint8Array; SQLite stores either as a BLOB.
  repository.store(request.message, request.recipients).then(
    (copies) => parentPort!.postMessage({ id: request.id, copies }),
    (error: Error) => parentPort!.postMessage({ id: request.id, error: error.message }),
  );
});
