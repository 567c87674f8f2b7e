// The configuration file checked against one schema before anything starts (issue 42): every key
// and type the server reads, with its range, and nothing else. A typo'd key would otherwise be
// ignored in silence (the operator believes a limit is set that is not), and a wrong type would
// surface later as a library's stack trace. Each problem is one line naming the setting's path;
// an unknown key names the closest known one.
import { Ajv, type ErrorObject } from "ajv";

const int = (minimum: number, maximum: number) => ({ type: "integer", minimum, maximum });
const port = int(0, 65535);
const str = { type: "string" };
const bool = { type: "boolean" };
const strings = { type: "array", items: str };
const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: "object", properties, required, additionalProperties: false });

const MS_MAX = 24 * 3600_000;

const preset = object(
  {
    id: str,
    name: str,
    forwardUrl: { type: ["string", "null"] },
    commands: { type: "array", items: object({ command: str, description: str }, ["command", "description"]) },
    profile: object({ description: str, shortDescription: str }),
  },
  ["id", "name"],
);

/** The settings a config file may hold (server/README.md, "Configuration"). */
export const configFileSchema = object({
  host: str,
  port,
  publicUrl: str,
  dataDir: { type: "string", minLength: 1 },
  databaseUrl: str,
  dns: object({ enabled: bool, host: str, port }),
  resolver: object({ host: str, port }),
  mailHost: str,
  nameServers: { type: "array", items: str, minItems: 1 },
  allowHttpLoopbackWebhooks: bool,
  webhookTimeoutMs: int(1, 600_000),
  corsOrigins: strings,
  outboundResolver: str,
  trustedProxies: strings,
  demo: bool,
  logLevel: str,
  limits: object(Object.fromEntries(["webhooks", "mailboxes", "groups", "membersPerGroup", "recordsPerZone", "mailDomains", "certificates", "bots"].map((k) => [k, int(0, 1_000_000)]))),
  smtp: object({
    enabled: bool,
    host: str,
    port,
    maxMessageBytes: int(1024, 1024 ** 3),
    maxRecipients: int(1, 100_000),
    maxConnections: int(1, 1_000_000),
    maxConnectionsPerClient: int(1, 1_000_000),
    idleTimeoutMs: int(1, MS_MAX),
    sessionTimeoutMs: int(1, MS_MAX),
    dataTimeoutMs: int(1, MS_MAX),
    proxyProtocolFrom: strings,
  }),
  relay: object({
    name: str,
    port,
    allowLoopback: bool,
    smarthost: object({ host: str, port, secure: bool, requireTls: bool, user: str, pass: str }, ["host"]),
  }),
  certificates: object({
    issuer: { enum: ["local", "acme"] },
    acme: object({ directoryUrl: str, eabKid: str, eabHmacKey: str, caFile: str, email: str, pollMinMs: int(1, MS_MAX) }),
  }),
  messenger: object({
    apiRoot: str,
    managerToken: str,
    timeoutMs: int(1, 600_000),
    linkTtlSeconds: int(1, 30 * 86_400),
    bulkConcurrency: int(1, 100),
    presets: { type: "array", items: preset },
  }),
  dlp: object({ threads: int(0, 64) }),
});

const ajv = new Ajv({ allErrors: true, strict: true });
const validate = ajv.compile(configFileSchema);

/** The first problem of a parsed config file, as one sentence; undefined when it fits the schema. */
export function configFileProblem(value: unknown, file: string): string | undefined {
  if (validate(value)) return undefined;
  // Unknown keys first: a typo explains the other errors it causes less often than it hides.
  const errors = [...(validate.errors ?? [])].sort((a, b) => Number(b.keyword === "additionalProperties") - Number(a.keyword === "additionalProperties"));
  return `${file}: ${describe(errors[0], value)}`;
}

function describe(e: ErrorObject, root: unknown): string {
  const at = e.instancePath.slice(1).split("/").filter(Boolean).join(".");
  const value = at.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], root);
  const shown = JSON.stringify(value);
  switch (e.keyword) {
    case "additionalProperties": {
      const key = (e.params as { additionalProperty: string }).additionalProperty;
      const known = Object.keys(schemaAt(at)?.properties ?? {});
      const close = closest(key, known);
      const where = at ? `"${at}.${key}"` : `"${key}"`;
      return `${where} is not a setting${close ? `; did you mean "${at ? `${at}.` : ""}${close}"?` : ""} (known here: ${known.join(", ")})`;
    }
    case "type":
      return `"${at}" must be ${article((e.params as { type: string | string[] }).type)}, got ${shown}`;
    case "minimum":
    case "maximum": {
      const s = schemaAt(at) as { minimum?: number; maximum?: number } | undefined;
      return `"${at}" must be a whole number from ${s?.minimum} to ${s?.maximum}, got ${shown}`;
    }
    case "enum":
      return `"${at}" must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(", ")}, got ${shown}`;
    case "required":
      return `"${at ? `${at}.` : ""}${(e.params as { missingProperty: string }).missingProperty}" is required`;
    default:
      return `"${at}" ${e.message ?? "is not valid"}, got ${shown}`;
  }
}

function article(type: string | string[]): string {
  const names: Record<string, string> = { integer: "a whole number", string: "a string", boolean: "true or false", array: "a list", object: "an object", null: "null" };
  return [type].flat().map((t) => names[t] ?? t).join(" or ");
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** The schema of the value at a dotted path (array indexes step into `items`). */
function schemaAt(at: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = configFileSchema as SchemaNode;
  for (const key of at.split(".").filter(Boolean)) node = /^\d+$/.test(key) ? node?.items : node?.properties?.[key];
  return node;
}

/** The known key within edit distance 3 (and less than the key's length) of `key`, if any. */
export function closest(key: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(3, key.length - 1);
  for (const k of known) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d <= bestDistance) [best, bestDistance] = [k, d - 1e-9];
  }
  return best;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
