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
  /** where the subscription takes the receiver URL, a runtime expression; default `$request.body#/url` */
  urlAt?: string;
  /** the contract's `webhooks` entry whose schema judges the payload; default the one named by trigger.event (or whose operationId it is) */
  webhook?: string;
  /**
   * How deliveries are signed: `false` for not at all; by default HMAC-SHA256 of the raw body in
   * hex, prefixed `sha256=`, in the header whose name holds "signature" among the webhooks'
   * header parameters, keyed with the subscription answer's `secret` (or a `whsec_` string).
   */
  signature?: false | { header?: string; prefix?: string; encoding?: "hex" | "base64"; secretAt?: string };
  /** the header naming the event on a delivery; `false` when deliveries carry none */
  eventHeader?: string | false;
}

export interface ConformanceConfig {
  baseUrl?: string;
  spec?: string;
  scopeExtension?: string;
  headers?: Record<string, string>;
  keys?: {
    all?: string;
    /**
     * map "scope1,scope2" -> key, a shell command with {scopes}, or a function (module configs).
     * A command runs in the folder the suite was started from (where `npm run admin` works), not
     * the config's; its output's last word is the key.
     */
    withScopes?: Record<string, string> | string | ((scopes: string[]) => Promise<string> | string);
    /**
     * Revokes a key `withScopes` made, once the run ends (what the run made, it removes): a shell
     * command with {key} and {id} (the first `word_id` token of the creating command's output,
     * or what `idPattern` matches there), or a function (module configs).
     */
    revoke?: string | ((key: string) => Promise<void> | void);
    /** finds a created key's id in the creating command's output; default `\b[A-Za-z]+_[A-Za-z0-9]+\b` */
    idPattern?: string;
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
  /** callback_conformance: how long the implementation has to send a callback (default 5000 ms) */
  callbacks?: { waitMs?: number };
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

export interface ScopedKeys {
  (scopes: string[]): Promise<string | undefined>;
  /** revokes every key this maker created (config `keys.revoke`); says what it could not */
  revokeAll(): Promise<string[]>;
}

/** Resolves `withScopes` into a function; keys are cached per scope set. */
export function scopedKeyMaker(cfg: ResolvedConfig): ScopedKeys {
  const cache = new Map<string, Promise<string | undefined>>();
  const made: { key: string; output?: string }[] = [];
  const source = cfg.keys?.withScopes;
  const maker = ((scopes: string[]) => {
    const id = [...scopes].sort().join(",");
    if (!cache.has(id)) {
      cache.set(id, (async () => {
        if (!source) return undefined;
        if (typeof source === "object") return source[id];
        if (typeof source === "function") {
          const key = await source(scopes);
          if (key) made.push({ key });
          return key;
        }
        const command = source.replaceAll("{scopes}", id || "none");
        const stdout = await shell(command, "keys.withScopes");
        // Consoles print a sentence around the key; the key is its last word.
        const key = stdout.trim().split(/\s+/).pop();
        if (!key) throw new ContractError(`keys.withScopes command printed no key for scopes ${id || "none"}: ${command}`);
        made.push({ key, output: stdout });
        return key;
      })());
    }
    return cache.get(id)!;
  }) as ScopedKeys;
  maker.revokeAll = async () => {
    const revoke = cfg.keys?.revoke;
    if (!made.length) return [];
    if (!revoke) return [`${made.length} keys made by keys.withScopes were left active: name a keys.revoke command in the config to remove them after the run`];
    const problems: string[] = [];
    const idPattern = new RegExp(cfg.keys?.idPattern ?? "\\b[A-Za-z]+_[A-Za-z0-9]+\\b");
    const queue = made.splice(0);
    // A console command is a process start each (seconds on a busy machine): four at a time.
    const lane = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { key, output } = next;
        const keyId = output !== undefined ? idPattern.exec(output)?.[0] : undefined;
        // The key itself is never printed: a problem names its id, or its last four characters.
        const name = keyId ?? `…${key.slice(-4)}`;
        try {
          if (typeof revoke === "function") await revoke(key);
          else await shell(revoke.replaceAll("{key}", key).replaceAll("{id}", keyId ?? ""), "keys.revoke");
        } catch (error) {
          problems.push(`key ${name} made by keys.withScopes could not be revoked: ${(error as Error).message.replaceAll(key, "…")}`);
        }
      }
    };
    await Promise.all([lane(), lane(), lane(), lane()]);
    return problems.sort();
  };
  return maker;
}

/**
 * A config command, run where the suite was started (the config's folder would give a console
 * the wrong working directory: the platform's opened, and created, an empty database there). A
 * failure is one clean line naming the setting, never a stack trace.
 */
async function shell(command: string, setting: string): Promise<string> {
  try {
    return (await run("sh", ["-c", command], { cwd: process.cwd() })).stdout;
  } catch (error) {
    const e = error as { code?: unknown; stderr?: string; message: string };
    const said = String(e.stderr ?? "").trim().split("\n").filter(Boolean).pop() ?? e.message;
    throw new ContractError(`${setting} command failed (exit ${e.code ?? "?"}): ${said.slice(0, 300)}`);
  }
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
