// The per-message envelope sender (VERP): DSNs come back to an address that names the message,
// so feedback parsing finds it without trusting anything inside the bounce.
const PREFIX = "bounces+";

export function returnPathFor(messageId: string, senderDomain: string): string {
  return `${PREFIX}${messageId}@${senderDomain}`;
}

/** The message id of a VERP address, or undefined when the address is not one of ours. */
export function messageIdFromReturnPath(address: string): string | undefined {
  const at = address.lastIndexOf("@");
  const local = at < 0 ? address : address.slice(0, at);
  if (!local.toLowerCase().startsWith(PREFIX)) return undefined;
  const id = local.slice(PREFIX.length);
  return /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : undefined;
}

/** Message-ID on the sender domain (issue 10), without angle brackets. */
export function rfcMessageIdFor(messageId: string, senderDomain: string): string {
  return `${messageId}@${senderDomain}`;
}
