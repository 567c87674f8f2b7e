// The seam where tracking and one-click unsubscribe (server/mail-tracking, another engineer's
// work) change a message before it is stored: the accept path calls `prepare` once per message,
// after templates and variables are filled in and before the DLP verdict is recorded. What it
// returns is what gets stored, composed and DKIM-signed: the HTML (links rewritten, pixel added),
// the tracked links in order (their idx is the position in this list) and extra headers
// (List-Unsubscribe, List-Unsubscribe-Post), which bypass the custom-header rules and are signed.

export interface OutgoingHookInput {
  messageId: string;
  projectId: string;
  from: string;
  to: string;
  stream: "transactional" | "marketing";
  scope: string;
  track: boolean;
  unsubscribe: boolean;
  html?: string;
  text?: string;
}

export interface OutgoingHookOutput {
  html?: string;
  /** Original URLs of the rewritten links, idx = position. Empty when not tracked. */
  links: string[];
  /** Headers the message must carry, e.g. List-Unsubscribe and List-Unsubscribe-Post. */
  headers: Record<string, string>;
}

export interface OutgoingMailHooks {
  prepare(input: OutgoingHookInput): OutgoingHookOutput;
}

/** Until tracking lands: the message as it is, nothing tracked, no list headers. */
export const noOutgoingHooks: OutgoingMailHooks = {
  prepare: (input) => ({ html: input.html, links: [], headers: {} }),
};
