// /openapi.json serves the contract; /docs serves the Redocly reference (generated/docs/index.html,
// built with Redoc's bundle inlined from the installed @redocly/cli, so the page needs no network).
// The file is looked at on every request: a build by `npm run docs` or by this server shows up
// without a restart. A server started with `build` builds it itself when it is missing or older
// than the contract (a fresh clone), and serves a plain operation index until it is ready.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { escapeHtml, page } from "../webmail/html.ts";

type Obj = Record<string, any>;

export interface DocsOptions {
  /** Build the reference when it is missing or older than the contract (npm start; off in tests). */
  build?: boolean;
  /** Where the built reference lives; default generated/docs/index.html. */
  file?: string;
  /** Called when a build fails (the plain index stays). */
  onBuildError?: (message: string) => void;
  /** The contract file /openapi.json follows (default generated/openapi/openapi.json). */
  contractFile?: string;
}

const repoFile = (relative: string) => fileURLToPath(new URL(`../../${relative}`, import.meta.url));
export const DEFAULT_DOCS_FILE = repoFile("generated/docs/index.html");
const CONTRACT_FILE = repoFile("generated/openapi/openapi.json");

export async function registerDocs(app: FastifyInstance, openapi: object, options: DocsOptions = {}): Promise<void> {
  const contract = servedContract(openapi, options.contractFile ?? CONTRACT_FILE);
  app.get("/openapi.json", async (_req, reply) => reply.header("content-type", "application/json; charset=utf-8").header("cache-control", "no-cache").send(contract()));
  const docs = referenceDocs(openapi as Obj, options);
  app.get("/docs", async (_req, reply) =>
    reply.header("content-type", "text/html; charset=utf-8").header("cache-control", "no-cache").send(docs.html()),
  );
}

/**
 * The contract's JSON as /openapi.json serves it. A server started from generated/openapi follows
 * that file, as /docs does: after `npm run generate -- --watch` rebuilt it, both show the new
 * contract (read again when its mtime moves). A server given another contract (tests) serves that.
 */
function servedContract(openapi: object, file: string): () => string {
  const json = JSON.stringify(openapi);
  const fromFile = () => (existsSync(file) ? readFileSync(file, "utf8") : undefined);
  const startedFromFile = (() => {
    const text = fromFile();
    try {
      return text !== undefined && JSON.stringify(JSON.parse(text)) === json;
    } catch {
      return false;
    }
  })();
  if (!startedFromFile) return () => json;
  let cached = { mtimeMs: statSync(file).mtimeMs, json };
  return () => {
    const mtimeMs = existsSync(file) ? statSync(file).mtimeMs : cached.mtimeMs;
    if (mtimeMs !== cached.mtimeMs) {
      try {
        cached = { mtimeMs, json: JSON.stringify(JSON.parse(fromFile()!)) };
      } catch {
        // A file being written: the last complete contract until the next look.
      }
    }
    return cached.json;
  };
}

function referenceDocs(openapi: Obj, options: DocsOptions) {
  const file = options.file ?? DEFAULT_DOCS_FILE;
  let cached: { mtimeMs: number; html: string } | undefined;
  let building = false;

  const mtime = (f: string) => (existsSync(f) ? statSync(f).mtimeMs : undefined);

  function build(): void {
    building = true;
    const tmp = `${file}.${process.pid}.tmp.html`;
    mkdirSync(path.dirname(file), { recursive: true });
    // The installed CLI on this Node; --inlineBundle embeds Redoc instead of loading it from a CDN.
    const cli = path.join(path.dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")), "bin/cli.js");
    const child = spawn(process.execPath, [cli, "build-docs", CONTRACT_FILE, "--output", tmp, "--inlineBundle"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (error) => finish(error.message));
    child.on("exit", (code) => finish(code === 0 ? undefined : `redocly build-docs exited ${code}: ${stderr.slice(-500)}`));
    function finish(problem: string | undefined) {
      if (!building) return;
      building = false;
      if (problem || !existsSync(tmp)) {
        rmSync(tmp, { force: true });
        options.onBuildError?.(problem ?? "redocly build-docs wrote nothing");
        return;
      }
      // Renamed into place whole, so a request never reads a half-written page.
      renameSync(tmp, file);
    }
  }

  function resolveBuildable(): boolean {
    try {
      createRequire(import.meta.url).resolve("@redocly/cli/package.json");
      return existsSync(CONTRACT_FILE);
    } catch {
      return false; // a production install without dev dependencies: the plain index it is
    }
  }
  const canBuild = options.build === true && resolveBuildable();

  function html(): string {
    const built = mtime(file);
    const contract = mtime(CONTRACT_FILE);
    const stale = built === undefined || (contract !== undefined && built < contract);
    if (stale && canBuild && !building) build();
    if (built === undefined) return renderIndex(openapi, building);
    if (cached?.mtimeMs !== built) cached = { mtimeMs: built, html: readFileSync(file, "utf8") };
    return cached.html;
  }

  if (canBuild) html(); // start a needed build at once, not on the first visit
  return { html };
}

function renderIndex(doc: Obj, building: boolean): string {
  const rows: string[] = [];
  for (const [p, item] of Object.entries<Obj>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Obj>(item)) {
      if (!op || typeof op !== "object" || !op.operationId) continue;
      rows.push(
        `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(p)}</code></td><td>${escapeHtml(op.summary ?? "")}</td><td><code>${escapeHtml(op["x-platform-scope"] ?? "")}</code></td></tr>`,
      );
    }
  }
  const title = `${doc.info?.title ?? "API"} ${doc.info?.version ?? ""}`;
  const note = building
    ? "The full reference is being built; this page reloads when it is ready."
    : "Run <code>npm run docs</code> (or start the server with <code>npm start</code>) for the full reference.";
  // While building, reload until the reference replaces this index.
  const refresh = building ? `<meta http-equiv="refresh" content="3">` : "";
  return page(
    title,
    `${refresh}<main><h1>${escapeHtml(title)}</h1><p>The full contract: <a href="/openapi.json">/openapi.json</a>. ${note}</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Scope</th></tr></thead><tbody>${rows.join("")}</tbody></table></main>`,
  );
}
