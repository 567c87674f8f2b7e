// Worker threads for scanning. Each thread scans one message at a time; messages wait in order, so
// the messages of a batch handed in together run side by side on every thread the pool has.
// A thread that does not answer within the message budget plus a grace period (a parser stuck in a
// loop) or dies (out of memory under its heap cap) is ended and replaced, and the message is
// reported as not inspected rather than passed.
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { OutgoingContent } from "./dlp-port.ts";
import { defaultLimits } from "./extract/limits.ts";
import type { ScanOptions, ScanResult } from "./scanner.ts";

interface Task {
  id: number;
  content: OutgoingContent;
  options: ScanOptions;
  resolve: (r: ScanResult) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  task?: Task;
  timer?: NodeJS.Timeout;
}

const GRACE_MS = 10_000;
export const THREAD_NAME = "dlp-scan";

export interface ScanPoolOptions {
  /** 0 or absent: up to 2, no more than the machine's cores. */
  threads?: number;
  /** Heap of one scanning thread. */
  maxHeapMb?: number;
}

export class ScanPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly size: number;
  private readonly maxHeapMb: number;
  private nextId = 1;
  private closed = false;
  private peak = 0;

  constructor(options: ScanPoolOptions = {}) {
    this.size = options.threads || Math.max(1, Math.min(2, availableParallelism()));
    this.maxHeapMb = options.maxHeapMb ?? 1024;
  }

  scan(content: OutgoingContent, options: ScanOptions): Promise<ScanResult> {
    if (this.closed) return Promise.reject(new Error("scan pool closed"));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, content, options, resolve, reject });
      this.pump();
    });
  }

  /** Scanning threads alive now (they start on first use, up to the pool's size). */
  get threads(): number {
    return this.slots.length;
  }

  /** How many messages may be scanned at once. */
  get capacity(): number {
    return this.size;
  }

  /** The most messages that were being scanned at once since the pool started. */
  get peakBusy(): number {
    return this.peak;
  }

  /** Rejects what waits, ends every thread and resolves once they have exited. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new Error("scan pool closed"));
    await Promise.all(this.slots.splice(0).map((s) => (clearTimeout(s.timer), s.worker.terminate())));
  }

  private spawn(): Slot {
    // Named, so the thread is visible as "dlp-scan" in /proc/<pid>/task (and in the shutdown test).
    const worker = new Worker(new URL("./scan-worker.ts", import.meta.url), { name: THREAD_NAME, resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb } });
    worker.unref();
    const slot: Slot = { worker };
    worker.on("message", (msg: { id: number; result?: ScanResult; error?: string }) => {
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      this.finish(slot);
      if (msg.result) task.resolve(msg.result);
      else task.reject(new Error(msg.error ?? "scan failed"));
    });
    const fail = (reason: string) => {
      const task = slot.task;
      this.replace(slot);
      task?.resolve(notInspected(reason));
    };
    worker.on("error", (e) => fail(`not inspected: the scanner failed (${e.message})`));
    worker.on("exit", (code) => {
      if (slot.task) fail(`not inspected: the scanner stopped (exit ${code})`);
    });
    this.slots.push(slot);
    return slot;
  }

  private finish(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.task = undefined;
    slot.timer = undefined;
    this.pump();
  }

  private replace(slot: Slot): void {
    clearTimeout(slot.timer);
    slot.task = undefined;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.terminate();
    this.pump();
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const slot = this.slots.find((s) => !s.task) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      // The scan stops itself at its budget (the message's, or what is left of its batch's); the
      // grace covers a parser that does not.
      const own = task.options.limits?.messageBudgetMs ?? defaultLimits.messageBudgetMs;
      const budget = Math.max(0, Math.min(own, (task.options.deadline ?? Infinity) - Date.now()));
      slot.timer = setTimeout(() => {
        this.replace(slot);
        task.resolve(notInspected(`not inspected: scanning took longer than ${Math.round((budget + GRACE_MS) / 1000)} s`));
      }, budget + GRACE_MS);
      slot.worker.ref();
      slot.worker.postMessage({ id: task.id, content: task.content, options: task.options });
      this.peak = Math.max(this.peak, this.slots.filter((s) => s.task).length);
    }
    for (const s of this.slots) if (!s.task) s.worker.unref();
  }
}

function notInspected(reason: string): ScanResult {
  return { findings: [{ type: "encrypted", masked: reason, where: "message", full: false, mass: false, count: 1 }], truncated: 0 };
}
