// The outgoing hook's work for tracking and one-click unsubscribe: what the accept path stores
// with a message before it is ever composed, so every delivery attempt sends the same bytes. The
// click, open and unsubscribe URLs live on the server's public URL and carry signed tokens
// (tokens/message-token.ts).
import type { MessageTokens } from "../tokens/message-token.ts";
import { rewriteHtmlForTracking } from "../tracking/rewrite-html.ts";
import { oneClickHeaders } from "../unsubscribe/headers.ts";
import { engagementPaths } from "./paths.ts";

export interface ExtrasInput {
  messageId: string;
  html?: string;
  track: boolean;
  unsubscribe: boolean;
}

export interface OutgoingExtras {
  /** The HTML to send: rewritten when tracked, else as given. */
  html?: string;
  /** Headers to add (List-Unsubscribe and List-Unsubscribe-Post when asked for). */
  headers: Record<string, string>;
  /** Tracked link targets in idx order. */
  links: string[];
}

export interface ExtrasDeps {
  tokens: MessageTokens;
  /** The server's public base URL, without a trailing slash. */
  publicUrl: () => string;
}

export function outgoingExtras(deps: ExtrasDeps, m: ExtrasInput): OutgoingExtras {
  const base = deps.publicUrl().replace(/\/+$/, "");
  const extras: OutgoingExtras = { html: m.html, headers: {}, links: [] };
  if (m.track && m.html !== undefined) {
    const tracked = rewriteHtmlForTracking(m.html, {
      click: (idx) => base + engagementPaths.click(deps.tokens.sign("click", [m.messageId, String(idx)])),
      open: base + engagementPaths.open(deps.tokens.sign("open", [m.messageId])),
    });
    extras.html = tracked.html;
    extras.links = tracked.links.map((l) => l.url);
  }
  if (m.unsubscribe) extras.headers = oneClickHeaders(base + engagementPaths.unsubscribe(deps.tokens.sign("unsubscribe", [m.messageId])));
  return extras;
}
