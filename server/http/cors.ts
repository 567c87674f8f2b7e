// CORS for browser integrations (decision V2 in docs/decisions.md). Keys are bearer tokens, never
// cookies, so no credentials mode is offered; only origins the operator lists (CORS_ORIGINS, or
// `*`) get the headers, and only on the API under /v1: the webmail pages, which do use a cookie,
// never answer cross-origin.
import type { FastifyInstance } from "fastify";

// What a browser script may read of an answer beyond the CORS-safelisted headers.
const exposed = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, WWW-Authenticate, Allow";

export function registerCors(app: FastifyInstance, origins: string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes("*");
  const allowed = new Set(origins.map((o) => o.replace(/\/+$/, "")));
  app.addHook("onRequest", async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !request.url.startsWith("/v1/")) return;
    if (!any && !allowed.has(origin)) return;
    reply.header("Access-Control-Allow-Origin", any ? "*" : origin);
    if (!any) reply.header("Vary", "Origin");
    // A preflight: answer it here, before authentication, which a preflight never carries.
    if (request.method === "OPTIONS" && request.headers["access-control-request-method"]) {
      return reply
        .code(204)
        .header("Access-Control-Allow-Methods", "GET, POST, DELETE")
        .header("Access-Control-Allow-Headers", "Authorization, Content-Type")
        .header("Access-Control-Max-Age", "600")
        .send();
    }
    reply.header("Access-Control-Expose-Headers", exposed);
  });
}
