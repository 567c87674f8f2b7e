// The per-message Return-Path (VERP): `bounces+<message id>.<mac>@<sender domain>`. Bounces and
// complaints come back to it, and the address alone says which message they are about, whatever
// the report's format. The MAC (tokens/message-token.ts) keeps anyone from bouncing or
// complaining about a message they never received.
import type { MessageTokens } from "../tokens/message-token.ts";

const PREFIX = "bounces+";

export function verpAddress(tokens: MessageTokens, messageId: string, senderDomain: string): string {
  return `${PREFIX}${tokens.sign("bounce", [messageId])}@${senderDomain.toLowerCase()}`;
}

/** The message id a VERP address names, or undefined for any other address or a bad MAC. */
export function messageIdOfVerp(tokens: MessageTokens, address: string): string | undefined {
  const at = address.lastIndexOf("@");
  if (at < 0) return undefined;
  const local = address.slice(0, at).toLowerCase();
  if (!local.startsWith(PREFIX)) return undefined;
  return tokens.verify("bounce", local.slice(PREFIX.length), 1)?.[0];
}

/** Whether an address has the VERP shape, MAC unchecked: the inbound router's cheap test. */
export function looksLikeVerp(address: string): boolean {
  return address.toLowerCase().startsWith(PREFIX) && address.includes("@");
}
