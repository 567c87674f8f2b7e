// /openapi.json serves the contract; /docs serves the Redocly reference when `npm run docs` has
// built it, else a plain self-contained operation index rendered from the contract, so the
// embedded server needs no network and no build step.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { escapeHtml, page } from "../webmail/html.ts";

const builtDocs = fileURLToPath(new URL("../../generated/docs/index.html", import.meta.url));

type Obj = Record<string, any>;

export async function registerDocs(app: FastifyInstance, openapi: object): Promise<void> {
  const json = JSON.stringify(openapi);
  app.get("/openapi.json", async (_req, reply) => reply.header("content-type", "application/json; charset=utf-8").send(json));
  const html = existsSync(builtDocs) ? readFileSync(builtDocs, "utf8") : renderIndex(openapi as Obj);
  app.get("/docs", async (_req, reply) => reply.header("content-type", "text/html; charset=utf-8").send(html));
}

function renderIndex(doc: Obj): string {
  const rows: string[] = [];
  for (const [path, item] of Object.entries<Obj>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Obj>(item)) {
      if (!op || typeof op !== "object" || !op.operationId) continue;
      rows.push(
        `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(op.summary ?? "")}</td><td><code>${escapeHtml(op["x-platform-scope"] ?? "")}</code></td></tr>`,
      );
    }
  }
  const title = `${doc.info?.title ?? "API"} ${doc.info?.version ?? ""}`;
  return page(
    title,
    `<main><h1>${escapeHtml(title)}</h1><p>The full contract: <a href="/openapi.json">/openapi.json</a>. Run <code>npm run docs</code> for the complete reference.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Scope</th></tr></thead><tbody>${rows.join("")}</tbody></table></main>`,
  );
}
