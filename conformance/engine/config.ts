// What an implementation must provide that only its console can create, in one file:
// keys (all scopes, chosen scopes, another project, a low limit), fixture values, per-operation
// tolerances and the webhook setup. JSON for static setups; a .ts/.js module when keys must be
// minted by code.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { Credential } from "./auth.ts";
import { ContractError } from "./load-contract.ts";
import type { JsonSchema } from "./types.ts";

const run = promisify(execFile);

export interface OperationConfig {
  /** statuses that are a correct answer to schema-valid data (business rules the schema cannot say) */
  acceptStatuses?: number[];
  /** DELETE keeps the resource readable (cancel, archive) */
  softDelete?: boolean;
  skip?: boolean;
  /**
   * Fixture values for this operation only, over `values`: a resource only the console or the
   * outside world makes (a scheduled message to cancel, a received message, a recorded delivery).
   */
  values?: Record<string, unknown>;
}

export interface WebhookConfig {
  /** operation that subscribes a URL; its body gets the receiver URL and the event list */
  subscribe: string;
  /**
   * operation that causes an event, with the event name it should cause; `body` and
   * `pathParams`, when given, are sent instead of a generated case (an event often needs one exact
   * request, e.g. mail to an address the implementation can deliver to)
   */
  trigger: { operationId: string; event: string; body?: unknown; pathParams?: Record<string, string> };
  /** operation listing deliveries of a subscription (path parameter = subscription id) */
  deliveries?: string;
  /** the URL the implementation can reach the suite at, when it is not the local receiver */
  receiverUrl?: string;
  /** `http` or `https` (self-signed) receiver; defaults to what the contract's url field allows */
  protocol?: "http" | "https";
  waitMs?: number;
}

export interface ConformanceConfig {
  baseUrl?: string;
  spec?: string;
  scopeExtension?: string;
  headers?: Record<string, string>;
  keys?: {
    all?: string;
    /** map "scope1,scope2" -> key, a shell command with {scopes}, or a function (module configs) */
    withScopes?: Record<string, string> | string | ((scopes: string[]) => Promise<string> | string);
    otherProject?: string;
    lowLimit?: string;
    invalid?: string;
  };
  /**
   * One credential per security scheme name of the contract: a string (API key, bearer, OAuth2 or
   * OpenID Connect token, or "user:password" for HTTP Basic), `{ username, password }` or
   * `{ token }`. Schemes without one use `keys.all`.
   */
  credentials?: Record<string, Credential>;
  /** fixture values by parameter or body property name (a bound zone, a connected domain...) */
  values?: Record<string, unknown>;
  /** names among `values` that belong to the first project; default: all of them */
  ownedValues?: string[];
  errorSchema?: JsonSchema;
  operations?: Record<string, OperationConfig>;
  webhooks?: WebhookConfig;
  rateLimit?: { operationId?: string; maxRequests?: number };
  /** a 405 must carry `Allow` (RFC 9110 15.5.6); default true. Prism's mock sends none. */
  requireAllowHeader?: boolean;
  /** path to a hooks module, relative to the config file */
  hooks?: string;
}

export interface ResolvedConfig extends ConformanceConfig {
  dir: string;
  values: Record<string, unknown>;
  operations: Record<string, OperationConfig>;
}

export async function loadConfig(file: string | ConformanceConfig | undefined): Promise<ResolvedConfig> {
  if (!file) return { dir: process.cwd(), values: {}, operations: {} };
  // Tests and embedding programs pass the object itself.
  if (typeof file === "object") return { ...file, dir: process.cwd(), values: file.values ?? {}, operations: file.operations ?? {} };
  const abs = path.resolve(file);
  let cfg: ConformanceConfig;
  try {
    if (/\.(ts|mts|js|mjs)$/.test(abs)) {
      const mod = await import(pathToFileURL(abs).href);
      cfg = (mod.default ?? mod.config) as ConformanceConfig;
    } else cfg = JSON.parse(await readFile(abs, "utf8"));
  } catch (error) {
    throw new ContractError(`cannot load config ${file}: ${(error as Error).message}`);
  }
  if (!cfg || typeof cfg !== "object") throw new ContractError(`config ${file} exports no object`);
  return { ...cfg, dir: path.dirname(abs), values: cfg.values ?? {}, operations: cfg.operations ?? {} };
}

/** Resolves `withScopes` into a function; keys are cached per scope set. */
export function scopedKeyMaker(cfg: ResolvedConfig): (scopes: string[]) => Promise<string | undefined> {
  const cache = new Map<string, Promise<string | undefined>>();
  const source = cfg.keys?.withScopes;
  return (scopes) => {
    const id = [...scopes].sort().join(",");
    if (!cache.has(id)) {
      cache.set(id, (async () => {
        if (!source) return undefined;
        if (typeof source === "function") return source(scopes);
        if (typeof source === "object") return source[id];
        const command = source.replace("{scopes}", id || "none");
        const { stdout } = await run("sh", ["-c", command], { cwd: cfg.dir });
        // Consoles print a sentence around the key; the key is its last word.
        return stdout.trim().split(/\s+/).pop() || undefined;
      })());
    }
    return cache.get(id)!;
  };
}

const perOperation = new WeakMap<ResolvedConfig, Map<string, Record<string, unknown>>>();

/** The fixture values one operation's cases use: the global ones with the operation's own on top. */
export function valuesFor(cfg: ResolvedConfig, operationId: string): Record<string, unknown> {
  let byOp = perOperation.get(cfg);
  if (!byOp) perOperation.set(cfg, (byOp = new Map()));
  let values = byOp.get(operationId);
  // One object per operation, so generators cached by their fixture set are built once.
  if (!values) byOp.set(operationId, (values = cfg.operations[operationId]?.values ? { ...cfg.values, ...cfg.operations[operationId].values } : cfg.values));
  return values;
}
