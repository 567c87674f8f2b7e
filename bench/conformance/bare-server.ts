// The fastest server the contract allows: fastify answering every operation's route with one fixed
// body valid for its first 2xx response, the RateLimit headers included, and nothing else (no
// auth, no validation, no storage). It runs in a worker thread so the load generator on the main
// thread never shares its event loop.
import { isMainThread, parentPort, Worker } from "node:worker_threads";
import fastify from "fastify";
import { platformContract } from "../../conformance/fixtures/platform.ts";
import { synthesize } from "../../conformance/fixtures/synthesize.ts";

const RATE_LIMIT_HEADERS = { "ratelimit-limit": "1000", "ratelimit-remaining": "999", "ratelimit-reset": "60" };

export interface BareServer {
  url: string;
  /** a GET route without parameters, for the single-request baseline */
  fixedPath: string;
  routes: number;
  close(): Promise<void>;
}

async function listen(): Promise<{ url: string; fixedPath: string; routes: number }> {
  const contract = platformContract();
  const app = fastify();
  let fixedPath = "";
  for (const op of contract.operations) {
    const ok = op.responses.find((r) => /^2\d\d$/.test(r.status));
    const status = Number(ok?.status ?? 200);
    const body = synthesize(ok?.content["application/json"]?.schema);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (!fixedPath && op.method === "GET" && !op.path.includes("{") && payload) fixedPath = op.path;
    app.route({
      method: op.method as "GET",
      url: op.path.replace(/\{([^}]+)\}/g, ":$1"),
      handler: (_request, reply) => {
        reply.code(status).headers(RATE_LIMIT_HEADERS);
        if (payload === undefined) return reply.send();
        return reply.type("application/json").send(payload);
      },
    });
  }
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { url, fixedPath, routes: contract.operations.length };
}

export function startBareServer(): Promise<BareServer> {
  const worker = new Worker(new URL(import.meta.url));
  return new Promise((resolve, reject) => {
    worker.once("message", (ready: { url: string; fixedPath: string; routes: number }) =>
      resolve({ ...ready, close: async () => void (await worker.terminate()) }));
    worker.once("error", reject);
  });
}

if (!isMainThread) parentPort!.postMessage(await listen());
