// The scanner behind the send path (dlp-port.ts): reads the project's policy, scans in worker
// threads, and records findings in the DLP log with one `mail.dlp` event each.
import type { DatabaseSync } from "node:sqlite";
import { newId } from "../ids.ts";
import type { EventOutbox } from "../events/event-outbox.ts";
import type { Clock } from "../jobs/clock.ts";
import type { DlpFinding, DlpInspector, DlpRecordContext, DlpVerdict, OutgoingContent } from "./dlp-port.ts";
import type { DlpRepository } from "./dlp-repository.ts";
import { defaultLimits, type ScanLimits } from "./extract/limits.ts";
import type { ScanPool } from "./scan-pool.ts";

export interface DlpInspectorDeps {
  repository: DlpRepository;
  pool: ScanPool;
  events: EventOutbox;
  clock: Clock;
  limits?: Partial<ScanLimits>;
}

/** One line per message for the response's `warnings`: the types, where, and how many. */
export function warningLine(findings: DlpFinding[], truncated = 0): string {
  const parts = findings.map((f) => `${f.type} in ${f.where}${f.count && f.count > 1 ? ` (${f.count} times)` : ""}`);
  const more = truncated > 0 ? `; ${truncated} more not listed` : "";
  return `DLP: ${findings.length} finding${findings.length === 1 ? "" : "s"}: ${parts.join(", ")}${more}`;
}

export class DlpScannerInspector implements DlpInspector {
  private readonly deps: DlpInspectorDeps;
  constructor(deps: DlpInspectorDeps) {
    this.deps = deps;
  }

  async inspect(projectId: string, content: OutgoingContent): Promise<DlpVerdict> {
    return (await this.inspectMany(projectId, [content]))[0];
  }

  inspectBatch(projectId: string, contents: OutgoingContent[]): Promise<DlpVerdict[]> {
    const budget = this.deps.limits?.batchBudgetMs ?? defaultLimits.batchBudgetMs;
    return this.inspectMany(projectId, contents, Date.now() + budget);
  }

  /** Every message goes to the pool at once: it runs as many side by side as it has threads. */
  private async inspectMany(projectId: string, contents: OutgoingContent[], deadline?: number): Promise<DlpVerdict[]> {
    const policy = await this.deps.repository.policy(projectId);
    if (!policy || policy.mode === "off") return contents.map(() => ({ mode: "off", findings: [], warnings: [] }));
    const options = { types: policy.types, ocr: policy.ocr.enabled, limits: this.deps.limits, deadline };
    const results = await Promise.all(contents.map((content) => this.deps.pool.scan(content, options)));
    return results.map(({ findings, truncated }) => ({ mode: policy.mode, findings, warnings: findings.length ? [warningLine(findings, truncated)] : [] }));
  }

  /** The scanning threads (their state is what the shutdown and batch tests observe). */
  get pool(): ScanPool {
    return this.deps.pool;
  }

  close(): Promise<void> {
    return this.deps.pool.close();
  }

  record(db: DatabaseSync, projectId: string, findings: DlpFinding[], context: DlpRecordContext): void {
    if (findings.length === 0) return;
    const createdAt = new Date(this.deps.clock.now()).toISOString();
    // All findings and their events, or none: atomic alone, part of the caller's transaction inside one.
    db.exec("SAVEPOINT dlp_record");
    try {
      for (const finding of findings) {
        this.deps.repository.insert({ kind: "sqlite", db }, projectId, newId("dlp"), createdAt, finding, context);
        this.deps.events.emit(projectId, "mail.dlp", { messageId: context.messageId, action: context.action, from: context.from, to: context.to, finding });
      }
      db.exec("RELEASE dlp_record");
    } catch (error) {
      db.exec("ROLLBACK TO dlp_record");
      db.exec("RELEASE dlp_record");
      throw error;
    }
  }
}
