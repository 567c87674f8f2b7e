// The open pixel and click redirects, answered without an API key: the signed token is the only
// credential, and a click redirects only to the URL stored for that link of that message at send
// time, so the route is no open redirect. HEAD (link scanners, prefetchers) answers the same way
// without counting.
import type { FastifyInstance } from "fastify";
import type { MessageFeedback } from "../message-repository.ts";
import type { MessageTokens } from "../tokens/message-token.ts";

// A transparent 1x1 GIF.
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

export interface TrackingRouteDeps {
  tokens: MessageTokens;
  feedback: MessageFeedback;
}

export function registerTrackingRoutes(app: FastifyInstance, deps: TrackingRouteDeps): void {
  app.route({
    method: ["GET", "HEAD"],
    url: "/mail/o/:token",
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const [id] = deps.tokens.verify("open", (request.params as { token: string }).token, 1) ?? [];
      if (!id) return reply.code(404).type("text/plain").send("not found");
      if (request.method === "GET") await deps.feedback.recordOpen(id);
      // Every fetch must reach us to count, and no shared cache may keep one recipient's pixel.
      return reply.header("cache-control", "no-store, private").type("image/gif").send(PIXEL);
    },
  });

  app.route({
    method: ["GET", "HEAD"],
    url: "/mail/c/:token",
    exposeHeadRoute: false,
    handler: async (request, reply) => {
      const [id, idx] = deps.tokens.verify("click", (request.params as { token: string }).token, 2) ?? [];
      if (!id || !/^\d{1,6}$/.test(idx)) return reply.code(404).type("text/plain").send("not found");
      const url = request.method === "GET"
        ? await deps.feedback.recordClick(id, Number(idx))
        : (await deps.feedback.getTrackingInfo(id))?.links.find((l) => l.idx === Number(idx))?.url;
      if (!url) return reply.code(404).type("text/plain").send("not found");
      return reply.code(302).header("cache-control", "no-store, private").header("referrer-policy", "no-referrer").header("location", url).send();
    },
  });
}
