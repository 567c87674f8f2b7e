// Storing inbound mail off the main thread. A commit with synchronous=FULL waits for the disk
// (measured 6 to 20 ms here), and node:sqlite waits synchronously: on the main thread every
// SMTP session and HTTP request stood still for each fsync. The writer thread
// (delivery-writer-worker.ts) holds its own connection and commits groups of messages while the
// main thread goes on reading and parsing the next ones; the 250 still waits for the commit.
// Reads stay here: the recipient lookup at RCPT TO runs on the main thread's connection. Both
// threads run the one delivery repository (delivery-repository.ts), so the SQL is the same.
import { Worker } from "node:worker_threads";
import type { Backend } from "../db/backend.ts";
import { SqlDeliveryRepository, type DeliveredCopy, type DeliveryRepository, type Recipient, type StoredMessage } from "./delivery-repository.ts";

interface Reply {
  id: number;
  copies?: DeliveredCopy[];
  error?: string;
}

export class ThreadedDeliveryRepository implements DeliveryRepository {
  private readonly reader: SqlDeliveryRepository;
  private readonly usageChanged: (projectId: string) => void;
  private readonly dataDir: string;
  private worker: Worker | undefined;
  private readonly waiting = new Map<number, { resolve: (c: DeliveredCopy[]) => void; reject: (e: Error) => void }>();
  private next = 1;
  private failure: Error | undefined;

  /** `usageChanged` hears of each project whose mailboxes' usedBytes grew (the mailbox list cache). */
  constructor(backend: Backend, dataDir: string, usageChanged: (projectId: string) => void) {
    // Only its lookup runs here; the writer thread stores.
    this.reader = new SqlDeliveryRepository(backend, { countsMessages: false });
    this.usageChanged = usageChanged;
    this.dataDir = dataDir;
  }

  /** Started with the first message, so a server that receives none has no extra thread. */
  private writer(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./delivery-writer-worker.ts", import.meta.url), { workerData: { dataDir: this.dataDir } });
    worker.unref();
    worker.on("message", (reply: Reply) => this.settle(reply));
    const fail = (error: Error) => {
      this.failure = error;
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`delivery writer exited (${code})`)));
    return (this.worker = worker);
  }

  lookup(address: string): Promise<Recipient> {
    return this.reader.lookup(address);
  }

  store(message: StoredMessage, recipients: string[]): Promise<DeliveredCopy[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.writer().postMessage({ id, message, recipients }, ownMemory(message.raw));
    });
  }

  /** After the listener has stopped: lets the writer finish, then ends it. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.failure) return;
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    worker.postMessage("close");
    await exited;
  }

  private settle(reply: Reply): void {
    const w = this.waiting.get(reply.id);
    if (!w) return;
    this.waiting.delete(reply.id);
    if (reply.error !== undefined) return w.reject(new Error(reply.error));
    for (const projectId of new Set(reply.copies!.map((c) => c.projectId))) this.usageChanged(projectId);
    w.resolve(reply.copies!);
  }
}

/**
 * The bytes move to the writer instead of being copied there (the listener does not read them
 * after storing) when they are all of their memory: a message of 4 KB or more, made by
 * Buffer.concat. A smaller one shares Node's buffer pool with other buffers and is copied.
 */
function ownMemory(raw: Buffer): ArrayBuffer[] {
  const memory = raw.buffer;
  return memory instanceof ArrayBuffer && raw.byteOffset === 0 && raw.byteLength === memory.byteLength ? [memory] : [];
}
