// RFC 8058 one-click unsubscribe: an https URI in List-Unsubscribe (RFC 2369) and the
// List-Unsubscribe-Post field that tells the mailbox provider a POST of exactly this body
// unsubscribes without further interaction. Both must be covered by the DKIM signature (RFC 8058
// §4), which the relay's signer is told to include.
export const ONE_CLICK_BODY = "List-Unsubscribe=One-Click";

/** The headers to add, for the DKIM signer's header list as well. */
export const ONE_CLICK_HEADER_NAMES = ["List-Unsubscribe", "List-Unsubscribe-Post"] as const;

export function oneClickHeaders(url: string): Record<(typeof ONE_CLICK_HEADER_NAMES)[number], string> {
  if (/[<>\s,]/.test(url)) throw new Error("an unsubscribe URL must not hold <, >, commas or white space");
  return { "List-Unsubscribe": `<${url}>`, "List-Unsubscribe-Post": ONE_CLICK_BODY };
}
