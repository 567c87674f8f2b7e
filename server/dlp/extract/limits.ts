// Limits on hostile input. Whatever passes one of them is not silently skipped: the scanner
// reports it as an `encrypted` finding ("cannot be inspected") naming the limit, so block mode
// refuses what it could not read (docs/decisions.md, DLP4).
export interface ScanLimits {
  /** Bytes inflated from archives and office files per message (zip bombs). */
  maxInflatedBytes: number;
  /** Inflated/compressed size of one zip entry, past a small floor (zip bombs). */
  maxCompressionRatio: number;
  /** Archives inside archives: a zip in the attachment is depth 1. */
  maxDepth: number;
  /** Entries of one zip. */
  maxEntries: number;
  /** PDF pages read; the rest is reported. */
  maxPdfPages: number;
  /** One image's OCR. */
  ocrTimeoutMs: number;
  /** Image size in pixels (decoded size grows with width x height, not with the file). */
  maxImagePixels: number;
  /** Wall time for one message; what is left when it runs out is reported. */
  messageBudgetMs: number;
  /** Wall time for all the messages of one batch send, scanned side by side (decision DLP7). */
  batchBudgetMs: number;
  /** Characters of extracted text scanned per place. */
  maxTextChars: number;
}

export const defaultLimits: ScanLimits = {
  maxInflatedBytes: 100 * 1024 * 1024,
  maxCompressionRatio: 200,
  maxDepth: 3,
  maxEntries: 1000,
  maxPdfPages: 500,
  ocrTimeoutMs: 15_000,
  maxImagePixels: 40_000_000,
  messageBudgetMs: 60_000,
  batchBudgetMs: 60_000,
  maxTextChars: 32 * 1024 * 1024,
};

/** Thrown by an extractor for input it cannot read; `reason` becomes the finding's `masked`. */
export class Uninspectable extends Error {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** Shared by every extractor of one message. */
export class Budget {
  readonly limits: ScanLimits;
  readonly deadline: number;
  /** What ran out when `expired()`: the message's own budget or its batch's. */
  readonly spent: string;
  inflated = 0;
  /** `batchDeadline`: wall-clock end of the batch the message belongs to, when sooner than its own. */
  constructor(limits: ScanLimits, now = Date.now(), batchDeadline = Infinity) {
    this.limits = limits;
    this.deadline = Math.min(now + limits.messageBudgetMs, batchDeadline);
    this.spent = batchDeadline < now + limits.messageBudgetMs ? "not inspected: time budget of the batch ran out" : "not inspected: time budget of the message ran out";
  }

  expired(): boolean {
    return Date.now() >= this.deadline;
  }

  msLeft(): number {
    return Math.max(0, this.deadline - Date.now());
  }

  bytesLeft(): number {
    return Math.max(0, this.limits.maxInflatedBytes - this.inflated);
  }

  /** Counts inflated bytes; throws once the message's allowance is spent. */
  inflate(bytes: number): void {
    this.inflated += bytes;
    if (this.inflated > this.limits.maxInflatedBytes) throw new Uninspectable(`not inspected: inflates past ${mb(this.limits.maxInflatedBytes)} (zip bomb limit)`);
  }
}

export const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;
