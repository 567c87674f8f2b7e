// What the webmail pages read mail from. Mail reception lands in a later issue; until then every
// mailbox is empty, and this interface is where the stored-mail repository plugs in.

export interface MessageSummary {
  id: string;
  subject: string;
  from: string;
  receivedAt: string;
  preview: string;
}

export interface MessageView extends MessageSummary {
  to: string[];
  text: string;
}

export interface MessageStore {
  list(mailboxId: string, limit: number): Promise<MessageSummary[]>;
  get(mailboxId: string, id: string): Promise<MessageView | undefined>;
}

export const emptyMessageStore: MessageStore = {
  list: async () => [],
  get: async () => undefined,
};
