// The pages a recipient sees at the unsubscribe URL. No scripts: the button is a plain form that
// posts the RFC 8058 body, so a strict CSP holds and a link scanner's GET changes nothing.
import { escapeHtml } from "../../webmail/html.ts";
import { ONE_CLICK_BODY } from "./headers.ts";

function page(title: string, main: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;display:flex;justify-content:center}main{max-width:32em;padding:2em 1em}button{font:inherit;padding:.5em 1.2em;cursor:pointer}</style>
</head>
<body><main>${main}</main></body>
</html>
`;
}

const [field, value] = ONE_CLICK_BODY.split("=");

// What an unsubscribe does is decision T4: it stops the sender's marketing mail (newsletters,
// offers) and never its transactional mail (receipts, password resets), whichever kind of message
// the link came in. The pages say exactly that, so a reader of a receipt is not promised that
// receipts stop.
function effect(stream: "marketing" | "transactional"): string {
  const note = stream === "transactional"
    ? " This message was transactional mail (such as a receipt, a notification or a password reset): mail of that kind is not stopped and keeps arriving."
    : " Transactional mail (such as receipts, notifications or password resets) is not stopped.";
  return `<p id="effect">Unsubscribing stops marketing mail (newsletters, offers) from this sender to this address.${note}</p>`;
}

export function confirmPage(to: string, from: string, stream: "marketing" | "transactional"): string {
  return page(
    "Unsubscribe",
    `<h1>Unsubscribe</h1><p>Stop marketing mail from <strong id="from">${escapeHtml(from)}</strong> to <strong id="to">${escapeHtml(to)}</strong>?</p>${effect(stream)}
<form method="post"><input type="hidden" name="${field}" value="${value}"><button type="submit" id="unsubscribe">Unsubscribe</button></form>`,
  );
}

export function donePage(to: string, stream: "marketing" | "transactional"): string {
  const rest = stream === "transactional"
    ? "Transactional mail from this sender, such as the message you unsubscribed from, still arrives."
    : "Transactional mail from this sender (such as receipts or password resets) still arrives.";
  return page("Unsubscribed", `<h1 id="done">You are unsubscribed</h1><p>${escapeHtml(to)} will not get marketing mail from this sender again. ${rest}</p>`);
}

export function notFoundPage(): string {
  return page("Link not valid", `<h1>This link is not valid</h1><p>It may be incomplete; open it again from the message.</p>`);
}

export function badRequestPage(): string {
  return page("Unsubscribe", `<h1>Nothing was changed</h1><p>An unsubscribe request carries <code>${escapeHtml(ONE_CLICK_BODY)}</code>; use the button on the unsubscribe page.</p>`);
}
