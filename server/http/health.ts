// Health for load balancers and orchestrators (issue 42, decision OP1): outside /v1 and the
// contract, without authentication, and without any data of a project.
// - GET /healthz, liveness: the process answers. A failing liveness probe restarts the process,
//   so it checks nothing that a restart cannot fix (not the database).
// - GET /readyz, readiness: this instance can serve right now: its listeners are bound, its
//   migrations ran (both before `ready()` is set by platform.ts) and the store answers a query
//   within a second. 503 with the failing checks' names otherwise, and from the moment it closes,
//   so a balancer stops sending before the connections go.
import type { FastifyInstance } from "fastify";
import type { Store } from "../db/sql.ts";

export interface Readiness {
  /** True once every listener is bound and the worker runs; false again when closing starts. */
  serving(): boolean;
  store: Store;
}

const STORE_DEADLINE_MS = 1_000;

export function registerHealth(app: FastifyInstance, readiness: Readiness): void {
  // Probes run every few seconds on every instance: they stay out of the request log.
  app.get("/healthz", { logLevel: "silent" }, async (_request, reply) => {
    reply.header("cache-control", "no-store");
    return { status: "ok" };
  });
  app.get("/readyz", { logLevel: "silent" }, async (_request, reply) => {
    reply.header("cache-control", "no-store");
    const failing: string[] = [];
    if (!readiness.serving()) failing.push("listeners");
    if (!(await storeAnswers(readiness.store))) failing.push("store");
    if (failing.length === 0) return { status: "ready" };
    return reply.code(503).send({ error: `not ready: ${failing.join(", ")}`, code: "not_ready", details: { failing } });
  });
}

async function storeAnswers(store: Store): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STORE_DEADLINE_MS)));
  try {
    return await Promise.race([store.get("SELECT 1 AS ok").then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
