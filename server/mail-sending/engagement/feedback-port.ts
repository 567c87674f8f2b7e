// What the recipient-side routes and the feedback handler need from the message store: the
// `MessageFeedback` methods of the send path's repository (server/mail-sending), by message id.
// Kept as the subset used here so these modules depend on no more than they call.

export interface FeedbackTarget {
  id: string;
  projectId: string;
  to: string;
  from: string;
  stream: "transactional" | "marketing";
  scope: string;
  unsubscribe: boolean;
  /** Tracked links as stored at send time. */
  links: { idx: number; url: string }[];
}

export interface FeedbackPort {
  getTrackingInfo(id: string): FeedbackTarget | undefined;
  recordOpen(id: string): boolean;
  /** The URL of link `idx` as stored at send time, undefined when the message or link does not exist. */
  recordClick(id: string, idx: number): string | undefined;
  recordUnsubscribe(id: string): boolean;
  markBounced(id: string, bounce: { bounceType: "hard" | "soft"; reason: string }): boolean;
  markComplained(id: string): boolean;
}
