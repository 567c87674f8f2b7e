// GET /v1/mailboxes answered from memory: the project's list is kept until something may have
// changed it. Every write goes through this class (MailboxRepository is the only writer of the
// mailbox tables in this process), and `changed()` reports commits by other connections, so a
// list is never stale. Measured in server/README.md (npm run bench): the list query was the
// largest single cost of the route.
import type { Sql } from "../db/sql.ts";
import type { MailboxKind, MailboxRecord, MailboxRepository, NewMailbox } from "./mailbox-repository.ts";

// Far above any real number of active projects; a bound keeps a flood from growing memory.
const MAX_PROJECTS = 10_000;

export class CachedMailboxRepository implements MailboxRepository {
  private readonly inner: MailboxRepository;
  private readonly changed: () => boolean;
  private readonly lists = new Map<string, readonly MailboxRecord[]>();
  // Bumped by every write: a list read while a write ran is returned but not kept, since it may
  // predate the write.
  private generation = 0;

  constructor(inner: MailboxRepository, changed: () => boolean) {
    this.inner = inner;
    this.changed = changed;
  }

  /**
   * The whole list is the cached array itself, frozen with its records: a new array whenever the
   * list may have changed, so a caller may key what it derives from the list on its identity
   * (GET /v1/mailboxes keeps its answer that way).
   */
  async list(projectId: string, kind?: MailboxKind): Promise<readonly MailboxRecord[]> {
    if (this.changed()) this.lists.clear();
    let all = this.lists.get(projectId);
    if (!all) {
      const readAt = this.generation;
      all = Object.freeze((await this.inner.list(projectId)).map((m) => Object.freeze({ ...m })));
      if (readAt === this.generation) {
        if (this.lists.size >= MAX_PROJECTS) this.lists.clear();
        this.lists.set(projectId, all);
      }
    }
    return kind ? all.filter((m) => m.kind === kind) : all;
  }

  get(projectId: string, id: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    return this.inner.get(projectId, id, kind);
  }

  findByEmail(projectId: string, email: string, kind: MailboxKind): Promise<MailboxRecord | undefined> {
    return this.inner.findByEmail(projectId, email, kind);
  }

  listMembers(groupId: string): Promise<MailboxRecord[]> {
    return this.inner.listMembers(groupId);
  }

  async create(m: NewMailbox, cap?: number): Promise<MailboxRecord | undefined> {
    this.forget(m.projectId);
    return this.inner.create(m, cap);
  }

  async delete(projectId: string, id: string, kind: MailboxKind): Promise<boolean> {
    // Deleting a mailbox also drops its group memberships, so group counts change too.
    this.forget(projectId);
    return this.inner.delete(projectId, id, kind);
  }

  async setShared(projectId: string, id: string, shared: boolean): Promise<boolean> {
    this.forget(projectId);
    return this.inner.setShared(projectId, id, shared);
  }

  // A group's project is not in the call; member changes are rare, so every list goes.
  async addMember(groupId: string, mailboxId: string, cap?: number): Promise<boolean> {
    this.forget();
    return this.inner.addMember(groupId, mailboxId, cap);
  }

  async removeMember(groupId: string, mailboxId: string): Promise<boolean> {
    this.forget();
    return this.inner.removeMember(groupId, mailboxId);
  }

  // Inside another repository's transaction (a claim ending). Forgotten after the write as well:
  // on SQLite a read on the one connection sees the write from then on, and one read between the
  // first forget and the write must not stay cached; PostgreSQL's NOTIFY comes at commit.
  async releaseClaim(tx: Sql, claim: { id: string; projectId: string }, at: string): Promise<void> {
    this.forget(claim.projectId);
    await this.inner.releaseClaim(tx, claim, at);
    this.forget(claim.projectId);
  }

  /** Mail stored into the project's mailboxes (server/inbound) changed their usedBytes. */
  usageChanged(projectId: string): void {
    this.forget(projectId);
  }

  /** One project's list, or every list when the project is not known. */
  private forget(projectId?: string): void {
    this.generation++;
    if (projectId === undefined) this.lists.clear();
    else this.lists.delete(projectId);
  }
}
