// The console's commands, as functions over the repositories, so tests drive them in-process
// and platform-admin.ts only parses argv and prints.
import { parseArgs } from "node:util";
import { ALL_TYPES } from "../dlp/policy-types.ts";
import { issueKey } from "../auth/issue-key.ts";
import type { KeyRepository } from "../auth/key-repository.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import { canonicalName, hostNameProblem } from "../dns/names.ts";
import { runTemplateCommand, templateUsage } from "../mail-sending/template-commands.ts";
import type { TemplateRepository } from "../mail-sending/template-repository.ts";
import type { BotRepository } from "../messenger/bot-repository.ts";
import { presetUsage, runPresetCommand } from "../messenger/preset-commands.ts";
import type { DlpMode, ProjectRepository } from "../projects/project-repository.ts";
import { runSuppressionCommand, suppressionUsage } from "../suppressions/suppression-commands.ts";
import type { SuppressionRepository } from "../suppressions/suppression-repository.ts";

/** The repositories the console works on: db/sqlite-services.ts or db/postgres/pg-services.ts. */
export interface ConsoleStore {
  projects: ProjectRepository;
  keys: KeyRepository;
  zones: DnsRecordRepository;
  templates?: TemplateRepository;
  /** Messenger bot presets; absent, the presets commands are unavailable. */
  bots?: BotRepository;
  /** The suppression list (server/suppressions); absent, the suppressions commands are unavailable. */
  suppressions?: SuppressionRepository;
}

export interface ConsoleDeps extends ConsoleStore {
  scopes: string[];
  allowHttpLoopback?: boolean;
}

/** Bad input: printed without a stack trace, exit code 2. */
export class UsageError extends Error {}

export const usage = `platform-admin <command>

  store init      create the database (in DATA_DIR, or DATABASE_URL's) when there is none; every
                  other command works only on an existing one (the server creates it on its first start)
  projects create <name>
  projects list
  keys create --project <id> --scopes <a,b,...|all> [--name <text>] [--rate-limit <per minute, default 120>]
              [--daily-quota <n>] [--monthly-quota <n>]
  keys list [--project <id>]
  keys revoke <key id>
  zones create <zone> [--project <id>] [--registrar-requires-data]
  zones bind <zone> <project id>
  zones list [--project <id>]
  dlp set --project <id> --mode <off|warn|block> [--ocr <on|off>] [--types <card,iban,...|all>]
  dlp show --project <id>
${templateUsage}
${suppressionUsage}
${presetUsage}

Works on the server's database (DATABASE_URL or DATA_DIR, PLATFORM_CONFIG, as the server).`;

const options = {
  project: { type: "string" },
  scopes: { type: "string" },
  name: { type: "string" },
  "rate-limit": { type: "string" },
  "daily-quota": { type: "string" },
  "monthly-quota": { type: "string" },
  "registrar-requires-data": { type: "boolean" },
  mode: { type: "string" },
  ocr: { type: "string" },
  "forward-url": { type: "string" },
  commands: { type: "string" },
  description: { type: "string" },
  "short-description": { type: "string" },
  types: { type: "string" },
  help: { type: "boolean", short: "h" },
  subject: { type: "string" },
  text: { type: "string" },
  html: { type: "string" },
  "text-file": { type: "string" },
  "html-file": { type: "string" },
  version: { type: "string" },
  address: { type: "string" },
  reason: { type: "string" },
  stream: { type: "string" },
  scope: { type: "string" },
  since: { type: "string" },
  before: { type: "string" },
  limit: { type: "string" },
} as const;

export async function runCommand(deps: ConsoleDeps, argv: string[]): Promise<string> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values: v, positionals } = parsed;
  const [area, action, ...rest] = positionals;
  const command = `${area ?? ""} ${action ?? ""}`.trim();
  // Asking for help is not a mistake: the usage text, and a zero exit.
  if (v.help || area === "help") return usage;
  if (area === "presets" && deps.bots) {
    const project = await requireProject(deps, v.project);
    return runPresetCommand(deps.bots, deps.allowHttpLoopback ?? false, {
      action, rest, projectId: project.id, name: v.name, forwardUrl: v["forward-url"], commands: v.commands,
      description: v.description, shortDescription: v["short-description"],
    }, (message) => new UsageError(message));
  }

  if (area === "suppressions" && deps.suppressions && action) {
    const project = await requireProject(deps, v.project);
    return runSuppressionCommand(deps.suppressions, action, rest, project.id, v, (message) => new UsageError(message), table);
  }

  switch (command) {
    case "projects create": {
      const name = rest.join(" ").trim();
      if (!name) throw new UsageError("projects create needs a name");
      const p = await deps.projects.create(name);
      return `created project ${p.id} (${p.name})`;
    }
    case "projects list":
      return table(["id", "name", "dlp", "created"], (await deps.projects.list()).map((p) => [p.id, p.name, `${p.dlpMode}${p.dlpOcr ? "+ocr" : ""}`, p.createdAt]));
    case "keys create": {
      const project = await requireProject(deps, v.project);
      const scopes = parseScopes(v.scopes, deps.scopes);
      const { key, record } = await issueKey(deps.keys, {
        projectId: project.id,
        name: v.name ?? "key",
        scopes,
        rateLimit: positiveInt("--rate-limit", v["rate-limit"]) ?? undefined,
        dailyQuota: positiveInt("--daily-quota", v["daily-quota"]),
        monthlyQuota: positiveInt("--monthly-quota", v["monthly-quota"]),
      });
      return `created key ${record.id} for ${project.id}, ${record.rateLimit}/min, scopes: ${scopes.join(" ")}
This is the only time the key is shown; store it now:

${key}`;
    }
    case "keys list":
      return table(
        ["id", "project", "name", "key", "scopes", "rate/min", "daily", "monthly", "revoked"],
        (await deps.keys.list(v.project)).map((k) => [
          k.id, k.projectId, k.name, k.hint, String(k.scopes.length), String(k.rateLimit), String(k.dailyQuota ?? "-"), String(k.monthlyQuota ?? "-"), k.revokedAt ?? "-",
        ]),
      );
    case "keys revoke": {
      if (!rest[0]) throw new UsageError("keys revoke needs a key id");
      if (!(await deps.keys.revoke(rest[0]))) throw new UsageError(`no active key ${rest[0]}`);
      return `revoked ${rest[0]}`;
    }
    case "zones create": {
      const zone = zoneName(rest[0]);
      const project = v.project ? await requireProject(deps, v.project) : undefined;
      if (await deps.zones.getZone(zone)) throw new UsageError(`zone ${zone} already exists`);
      await deps.zones.createZone({ name: zone, projectId: project?.id ?? null, registrarRequiresData: v["registrar-requires-data"] === true });
      return `created zone ${zone}${project ? ` bound to ${project.id}` : ""}${v["registrar-requires-data"] ? " (record deletion requires data)" : ""}`;
    }
    case "zones bind": {
      const zone = zoneName(rest[0]);
      const project = await requireProject(deps, rest[1]);
      if (!(await deps.zones.bindZone(zone, project.id))) throw new UsageError(`no zone ${zone}`);
      return `bound ${zone} to ${project.id}`;
    }
    case "zones list":
      return table(["zone", "project", "requires data", "serial"], (await deps.zones.listZones(v.project)).map((z) => [z.name, z.projectId ?? "-", z.registrarRequiresData ? "yes" : "no", String(z.serial)]));
    case "dlp set": {
      const project = await requireProject(deps, v.project);
      const mode = v.mode as DlpMode;
      if (!["off", "warn", "block"].includes(mode)) throw new UsageError("--mode must be off, warn or block");
      if (v.ocr !== undefined && v.ocr !== "on" && v.ocr !== "off") throw new UsageError("--ocr must be on or off");
      const ocr = v.ocr === undefined ? project.dlpOcr : v.ocr === "on";
      const types = v.types === undefined ? project.dlpTypes : dlpTypesArg(v.types);
      await deps.projects.setDlpPolicy(project.id, mode, ocr);
      if (v.types !== undefined) await deps.projects.setDlpTypes(project.id, types);
      return `DLP for ${project.id}: ${mode}, OCR ${ocr ? "on" : "off"}${types ? `, types ${types.join(",")}` : ""}`;
    }
    case "dlp show": {
      const project = await requireProject(deps, v.project);
      return `DLP for ${project.id}: ${project.dlpMode}, OCR ${project.dlpOcr ? "on" : "off"}${project.dlpTypes ? `, types ${project.dlpTypes.join(",")}` : ""}`;
    }
    default:
      if (area === "templates" && deps.templates && action) {
        return runTemplateCommand(deps.templates, action, rest, v, (m) => new UsageError(m), async (id) => Boolean(await deps.projects.get(id)));
      }
      throw new UsageError(command ? `unknown command: ${command}\n\n${usage}` : usage);
  }
}

/** `all` (every type, also those added later) or a comma-separated list of DLP types. */
function dlpTypesArg(arg: string): string[] | null {
  if (arg === "all") return null;
  const types = [...new Set(arg.split(",").map((t) => t.trim()).filter(Boolean))];
  const unknown = types.filter((t) => !(ALL_TYPES as readonly string[]).includes(t));
  if (types.length === 0 || unknown.length) throw new UsageError(`--types must be all or a list of ${ALL_TYPES.join(", ")}${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}`);
  return types;
}

async function requireProject(deps: ConsoleDeps, id: string | undefined) {
  if (!id) throw new UsageError("--project <id> is required");
  const p = await deps.projects.get(id);
  if (!p) throw new UsageError(`no project ${id}; see projects list`);
  return p;
}

function parseScopes(raw: string | undefined, catalogue: string[]): string[] {
  if (!raw) throw new UsageError(`--scopes is required: a comma-separated list, or all. Scopes: ${catalogue.join(" ")}`);
  if (raw === "all") return [...catalogue];
  const scopes = [...new Set(raw.split(",").map((s) => s.trim()).filter(Boolean))];
  const unknown = scopes.filter((s) => !catalogue.includes(s));
  if (unknown.length) throw new UsageError(`unknown scope ${unknown.join(", ")}; scopes: ${catalogue.join(" ")}`);
  return scopes;
}

function positiveInt(flag: string, raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, got ${raw}`);
  return n;
}

function zoneName(raw: string | undefined): string {
  if (!raw) throw new UsageError("a zone name is required");
  const zone = canonicalName(raw);
  const problem = hostNameProblem(zone);
  if (problem || !zone.includes(".")) throw new UsageError(`invalid zone name ${raw}${problem ? `: ${problem}` : ""}`);
  return zone;
}

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return "(none)";
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}
