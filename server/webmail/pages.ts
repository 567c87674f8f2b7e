// The /webmail pages: redeeming a login link, the signed-in mailbox's message list and a message,
// and logout. The session lives in an HttpOnly, SameSite=Lax cookie: Lax still lets a link opened
// from the project's application (a top-level navigation) sign in, while cross-site POSTs carry no
// cookie. Being HttpOnly, no script can read it.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendDownload } from "../http/download.ts";
import type { Clock } from "../jobs/clock.ts";
import { frameAncestorsDirective } from "./frame-ancestors.ts";
import { escapeHtml, page } from "./html.ts";
import type { MessageStore, MessageView } from "./message-store.ts";
import { safeHtml } from "./safe-html.ts";
import { SESSION_COOKIE, SESSION_TTL_MS, hashToken, newToken } from "./tokens.ts";
import type { WebmailRepository } from "./webmail-repository.ts";

export interface WebmailPagesDeps {
  webmail: WebmailRepository;
  messages: MessageStore;
  /** The platform's clock, which tests move to see links and sessions expire. */
  clock: Clock;
  /** Adds `Secure` to the cookie when the public URL is https. */
  secureCookies: () => boolean;
}

// A value that does not percent-decode (`%`, a cut escape, bytes that are no UTF-8) was never set
// by us: it counts as absent, so the page answers "not signed in" rather than a 500 (issue 28
// item 10), and a well-formed cookie of the same name further on is still read.
function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      continue;
    }
  }
  return undefined;
}

// No script source at all; images only on a message whose reader asked for them. Framed only by
// the origins the session's login link named (decision M11): a page without a session, by no one.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'";
const IMAGES = "img-src http: https:";

function html(reply: FastifyReply, status: number, title: string, body: string, options: { frameAncestors?: string[]; images?: boolean } = {}): FastifyReply {
  const framing = frameAncestorsDirective(options.frameAncestors ?? []);
  if (framing.deny) reply.header("x-frame-options", "DENY");
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store")
    .header("content-security-policy", [CSP, framing.directive, ...(options.images ? [IMAGES] : [])].join("; "))
    // Links in mail open elsewhere without telling the sender which message they came from.
    .header("referrer-policy", "no-referrer")
    .send(page(title, body));
}

function messageBody(m: MessageView, id: string, showImages: boolean): string {
  if (m.html === null) return `<pre id="body">${escapeHtml(m.text)}</pre>`;
  const safe = safeHtml(m.html, showImages);
  const notice = safe.blockedImages
    ? `<p id="images-blocked">Remote images are not shown. <a id="show-images" href="/webmail/messages/${encodeURIComponent(id)}?images=1">Show images</a></p>`
    : "";
  return `${notice}<div id="body" class="html">${safe.html}</div>`;
}

export async function registerWebmailPages(root: FastifyInstance, deps: WebmailPagesDeps): Promise<void> {
  await root.register(async (app) => webmailRoutes(app, deps));
}

async function webmailRoutes(app: FastifyInstance, deps: WebmailPagesDeps): Promise<void> {
  // The logout form posts urlencoded; accepted only in this encapsulated scope, so the API keeps
  // answering 415 to anything but JSON.
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => done(null, body));
  // A session its link lets another site frame needs its cookie inside that site's iframe: SameSite=None
  // (which browsers take only with Secure; a loopback http origin counts as secure to them), and
  // Partitioned, so the cookie lives only under that top-level site (CHIPS), where browsers that
  // block third-party cookies still keep it (decision M11).
  const cookie = (value: string, maxAgeSeconds: number, framed = false) =>
    `${SESSION_COOKIE}=${value}; Path=/webmail; HttpOnly; ${framed ? "SameSite=None; Secure; Partitioned" : "SameSite=Lax"}; Max-Age=${maxAgeSeconds}${!framed && deps.secureCookies() ? "; Secure" : ""}`;

  async function session(request: FastifyRequest) {
    const id = readCookie(request, SESSION_COOKIE);
    return id ? deps.webmail.getSession(hashToken(id), deps.clock.now()) : undefined;
  }

  app.get("/webmail/login", async (request, reply) => {
    const token = (request.query as { token?: string }).token;
    const grant = typeof token === "string" ? await deps.webmail.redeemLink(hashToken(token), deps.clock.now()) : undefined;
    if (!grant) {
      return html(reply, 403, "Link expired", `<main><h1>This sign-in link is no longer valid</h1><p>Links work once and for 60 seconds. Ask for a new one.</p></main>`);
    }
    const { token: sessionId, hash } = newToken("ws");
    await deps.webmail.createSession(hash, grant, deps.clock.now() + SESSION_TTL_MS);
    return reply.code(303).header("set-cookie", cookie(sessionId, SESSION_TTL_MS / 1000, grant.frameAncestors.length > 0)).header("location", "/webmail").send();
  });

  app.get("/webmail", async (request, reply) => {
    const s = await session(request);
    if (!s) return html(reply, 401, "Webmail", `<main><h1>Not signed in</h1><p>Open a sign-in link from your application.</p></main>`);
    const list = await deps.messages.list(s.mailboxId, 50);
    const rows = list.length
      ? `<table><thead><tr><th>From</th><th>Subject</th><th>Received</th></tr></thead><tbody>${list
          .map((m) => `<tr class="message${m.quarantined ? " quarantined" : ""}"><td>${escapeHtml(m.from)}${m.quarantined ? QUARANTINE_TAG : ""}</td><td><a href="/webmail/messages/${encodeURIComponent(m.id)}">${escapeHtml(m.subject)}</a></td><td>${escapeHtml(m.receivedAt)}</td></tr>`)
          .join("")}</tbody></table>`
      : `<p id="empty">No messages yet.</p>`;
    return html(reply, 200, `Inbox - ${s.email}`, `${header(s.email)}<main><h1>Inbox</h1>${rows}</main>`, { frameAncestors: s.frameAncestors });
  });

  app.get("/webmail/messages/:id", async (request, reply) => {
    const s = await session(request);
    if (!s) return html(reply, 401, "Webmail", `<main><h1>Not signed in</h1></main>`);
    const id = (request.params as { id: string }).id;
    const m = await deps.messages.get(s.mailboxId, id);
    if (!m) return html(reply, 404, "Not found", `${header(s.email)}<main><h1>No such message</h1><p><a href="/webmail">Back to the inbox</a></p></main>`, { frameAncestors: s.frameAncestors });
    const showImages = (request.query as { images?: string }).images === "1";
    const warning = m.quarantined ? QUARANTINE_WARNING : "";
    const meta = `${warning}<p id="meta">From <span id="from">${escapeHtml(m.from)}</span> to <span id="to">${escapeHtml(m.to.join(", "))}</span>, ${escapeHtml(m.receivedAt)}</p>`;
    return html(reply, 200, m.subject, `${header(s.email)}<main><p><a href="/webmail">Inbox</a></p><h1 id="subject">${escapeHtml(m.subject)}</h1>${meta}${messageBody(m, id, showImages)}${attachmentList(m, id)}</main>`,
      { frameAncestors: s.frameAncestors, images: showImages });
  });

  // Downloads only (sendDownload): a received file never renders on this origin (decision M9).
  app.get("/webmail/messages/:id/attachments/:attachmentId", async (request, reply) => {
    const s = await session(request);
    if (!s) return html(reply, 401, "Webmail", `<main><h1>Not signed in</h1></main>`);
    const { id, attachmentId } = request.params as { id: string; attachmentId: string };
    const file = await deps.messages.attachment(s.mailboxId, id, attachmentId);
    if (!file) return html(reply, 404, "Not found", `${header(s.email)}<main><h1>No such attachment</h1></main>`, { frameAncestors: s.frameAncestors });
    return sendDownload(reply, "application/octet-stream", file.filename, file.content);
  });

  app.get("/webmail/messages/:id/raw", async (request, reply) => {
    const s = await session(request);
    if (!s) return html(reply, 401, "Webmail", `<main><h1>Not signed in</h1></main>`);
    const id = (request.params as { id: string }).id;
    const raw = await deps.messages.raw(s.mailboxId, id);
    if (!raw) return html(reply, 404, "Not found", `${header(s.email)}<main><h1>No such message</h1></main>`, { frameAncestors: s.frameAncestors });
    return sendDownload(reply, "message/rfc822", `${id}.eml`, raw);
  });

  app.post("/webmail/logout", async (request, reply) => {
    const id = readCookie(request, SESSION_COOKIE);
    // A partitioned cookie is removed only by a Set-Cookie of the same kind.
    const framed = id !== undefined && ((await session(request))?.frameAncestors.length ?? 0) > 0;
    if (id) await deps.webmail.deleteSession(hashToken(id));
    return reply.code(303).header("set-cookie", cookie("", 0, framed)).header("location", "/webmail").send();
  });
}

// A message whose From domain failed DMARC and asks for quarantine (decision I3): whoever sent it
// could not show the right to that domain's name, so the page says so before the sender's name.
const QUARANTINE_TAG = ` <strong class="quarantine-tag" title="Sender not verified">Unverified sender</strong>`;
const QUARANTINE_WARNING =
  `<p id="quarantine-warning" role="alert">Warning: this message was not verified as coming from the domain in its From address ` +
  `(it failed DMARC, and that domain asks for such mail to be treated as suspicious). It may be forged: do not trust its sender, links or requests.</p>`;

function attachmentList(m: MessageView, id: string): string {
  const base = `/webmail/messages/${encodeURIComponent(id)}`;
  const items = m.attachments
    .map((a) => `<li class="attachment"><a href="${base}/attachments/${a.id}" download>${escapeHtml(a.filename)}</a> <span class="type">${escapeHtml(a.contentType)}</span>, <span class="size">${formatSize(a.size)}</span>${a.inline ? " (shown in the message)" : ""}</li>`)
    .join("");
  const list = items ? `<h2>Attachments</h2><ul id="attachments">${items}</ul>` : "";
  return `<section>${list}<p><a id="raw" href="${base}/raw" download>Download the original message (.eml)</a></p></section>`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function header(email: string): string {
  return `<header><span id="mailbox">${escapeHtml(email)}</span><form method="post" action="/webmail/logout"><button id="logout" type="submit">Log out</button></form></header>`;
}
