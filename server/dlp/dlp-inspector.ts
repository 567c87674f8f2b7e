// The scanner behind the send path (dlp-port.ts): reads the project's policy, scans in worker
// threads, and records findings in the DLP log with one `mail.dlp` event each.
import type { DatabaseSync } from "node:sqlite";
import type { Backend } from "../db/backend.ts";
import { SyncEventOutbox, SyncJobQueue } from "../db/legacy-sqlite-outbox.ts";
import type { Queryable } from "../db/postgres/pg.ts";
import type { Tx } from "../db/tx.ts";
import { newId } from "../ids.ts";
import type { Clock } from "../jobs/clock.ts";
import type { DlpFinding, DlpInspector, DlpRecordContext, DlpVerdict, OutgoingContent } from "./dlp-port.ts";
import type { DlpRepository } from "./dlp-repository.ts";
import { defaultLimits, type ScanLimits } from "./extract/limits.ts";
import type { ScanPool } from "./scan-pool.ts";

export interface DlpInspectorDeps {
  repository: DlpRepository;
  pool: ScanPool;
  /** Where the `mail.dlp` events go: the store's outbox, on the caller's transaction. */
  backend: Backend;
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

  record(tx: Tx, projectId: string, findings: DlpFinding[], context: DlpRecordContext): void | Promise<void> {
    if (findings.length === 0) return;
    const createdAt = new Date(this.deps.clock.now()).toISOString();
    const { repository, backend } = this.deps;
    const data = (finding: DlpFinding) => ({ messageId: context.messageId, action: context.action, from: context.from, to: context.to, finding });
    // All findings and their events, or none: a savepoint keeps a failure here from leaving part of
    // them in the caller's transaction even when the caller goes on (and commits) after it.
    if (tx.kind === "sqlite") {
      sqliteSavepoint(tx.db, () => {
        for (const finding of findings) {
          repository.insert(tx, projectId, newId("dlp"), createdAt, finding, context);
          new SyncEventOutbox(tx.db, new SyncJobQueue(tx.db, this.deps.clock), this.deps.clock).emit(projectId, "mail.dlp", data(finding));
        }
      });
      return;
    }
    return pgSavepoint(tx.c, async () => {
      for (const finding of findings) {
        await repository.insert(tx, projectId, newId("dlp"), createdAt, finding, context);
        await backend.emit(tx, projectId, "mail.dlp", data(finding));
      }
    });
  }
}

// Synchronous on SQLite: the write must finish inside the caller's transaction(db, ...).
function sqliteSavepoint(db: DatabaseSync, fn: () => void): void {
  db.exec("SAVEPOINT dlp_record");
  try {
    fn();
    db.exec("RELEASE dlp_record");
  } catch (error) {
    db.exec("ROLLBACK TO dlp_record");
    db.exec("RELEASE dlp_record");
    throw error;
  }
}

// On the caller's transaction client (a savepoint needs one: not the pool, not backend.direct).
async function pgSavepoint(c: Queryable, fn: () => Promise<void>): Promise<void> {
  await c.query("SAVEPOINT dlp_record");
  try {
    await fn();
    await c.query("RELEASE dlp_record");
  } catch (error) {
    await c.query("ROLLBACK TO dlp_record");
    await c.query("RELEASE dlp_record");
    throw error;
  }
}
