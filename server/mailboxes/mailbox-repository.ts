// The storage boundary of mailboxes and groups. They share one address space (an address is
// either a mailbox or a group), so one repository owns both; every method is scoped to a project.

export type MailboxKind = "mailbox" | "group";

export interface MailboxRecord {
  id: string;
  projectId: string;
  domainId: string;
  kind: MailboxKind;
  email: string;
  description: string | null;
  shared: boolean;
  usedBytes: number;
  membersCount: number;
  createdAt: string;
}

export interface NewMailbox {
  projectId: string;
  domainId: string;
  kind: MailboxKind;
  email: string;
  passwordHash: string | null;
  description: string | null;
}

export interface MailboxRepository {
  /**
   * Undefined when the address is taken (by a mailbox or a group of any project). With `cap`,
   * throws CapReachedError when the project already has that many of `m.kind`, checked in the
   * insert's transaction.
   */
  create(m: NewMailbox, cap?: number): Promise<MailboxRecord | undefined>;
  /** Read-only: a cached repository answers with its own frozen list, the same object until something changes. */
  list(projectId: string, kind?: MailboxKind): Promise<readonly MailboxRecord[]>;
  get(projectId: string, id: string, kind: MailboxKind): Promise<MailboxRecord | undefined>;
  findByEmail(projectId: string, email: string, kind: MailboxKind): Promise<MailboxRecord | undefined>;
  /** Only within the project; false when there is no such entry. */
  delete(projectId: string, id: string, kind: MailboxKind): Promise<boolean>;
  setShared(projectId: string, id: string, shared: boolean): Promise<boolean>;
  listMembers(groupId: string): Promise<MailboxRecord[]>;
  /** False when the mailbox is already a member; CapReachedError when the group has `cap` members. */
  addMember(groupId: string, mailboxId: string, cap?: number): Promise<boolean>;
  removeMember(groupId: string, mailboxId: string): Promise<boolean>;
}
