// The one-click unsubscribe URL (RFC 8058). GET shows a confirmation page and changes nothing
// (link scanners and prefetchers GET every URL of a message); POST with the one-click body
// unsubscribes: a suppression in the marketing stream for the message's scope owner. The signed
// token is the only credential. Repeating the POST is harmless.
import type { FastifyInstance, FastifyReply } from "fastify";
import type { MessageFeedback } from "../message-repository.ts";
import type { MessageTokens } from "../tokens/message-token.ts";
import { isOneClickRequest } from "./one-click-body.ts";
import { badRequestPage, confirmPage, donePage, notFoundPage } from "./page.ts";

export interface UnsubscribeRouteDeps {
  tokens: MessageTokens;
  feedback: MessageFeedback;
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .header("content-type", "text/html; charset=utf-8")
    .header("cache-control", "no-store, private")
    .header("referrer-policy", "no-referrer")
    .header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
    .send(body);
}

/** Registers inside its own encapsulated scope: the form encodings are accepted here only. */
export async function registerUnsubscribeRoutes(root: FastifyInstance, deps: UnsubscribeRouteDeps): Promise<void> {
  await root.register(async (app) => {
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data"]) {
      app.addContentTypeParser(type, { parseAs: "string", bodyLimit: 16 * 1024 }, (_req, body, done) => done(null, body));
    }
    const target = async (token: string) => {
      const [id] = deps.tokens.verify("unsubscribe", token, 1) ?? [];
      return id ? deps.feedback.getTrackingInfo(id) : undefined;
    };

    app.get("/mail/u/:token", { exposeHeadRoute: false }, async (request, reply) => {
      const m = await target((request.params as { token: string }).token);
      return m ? html(reply, 200, confirmPage(m.to, m.from, m.stream)) : html(reply, 404, notFoundPage());
    });

    app.post("/mail/u/:token", async (request, reply) => {
      const m = await target((request.params as { token: string }).token);
      if (!m) return html(reply, 404, notFoundPage());
      const body = typeof request.body === "string" ? request.body : "";
      if (!isOneClickRequest(request.headers["content-type"], body)) return html(reply, 400, badRequestPage());
      await deps.feedback.recordUnsubscribe(m.id);
      return html(reply, 200, donePage(m.to, m.stream));
    });
  });
}
