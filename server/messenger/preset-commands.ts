// `platform-admin presets ...`: the project's own bot presets (docs/decisions.md B2). Shared
// presets live in the server's configuration (`messenger.presets`) and are listed here too.
import type { BotCommandRecord, BotRepository } from "./bot-repository.ts";
import { presetProblem } from "./presets.ts";

export const presetUsage = `  presets create --project <id> --name <text> [--forward-url <https url>] [--commands "start=Start,help=Help"]
                 [--description <text>] [--short-description <text>]
  presets list --project <id>
  presets delete <preset id> --project <id>`;

export interface PresetCommandInput {
  action: string | undefined;
  rest: string[];
  projectId: string;
  name?: string;
  forwardUrl?: string;
  commands?: string;
  description?: string;
  shortDescription?: string;
}

/** Throws `usage(message)` on bad input. */
export async function runPresetCommand(bots: BotRepository, allowHttpLoopback: boolean, input: PresetCommandInput, usage: (message: string) => Error): Promise<string> {
  switch (input.action) {
    case "create": {
      if (!input.name) throw usage("presets create needs --name");
      const commands = input.commands === undefined ? undefined : parseCommands(input.commands, usage);
      const profile = {
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.shortDescription !== undefined ? { shortDescription: input.shortDescription } : {}),
      };
      const preset = { name: input.name, forwardUrl: input.forwardUrl ?? null, ...(commands ? { commands } : {}), ...(Object.keys(profile).length ? { profile } : {}) };
      const problem = presetProblem({ id: "new", ...preset }, allowHttpLoopback);
      if (problem) throw usage(problem.replace(/^preset new: /, ""));
      const created = await bots.createPreset(input.projectId, preset);
      return `created preset ${created.id} (${created.name}) for ${input.projectId}`;
    }
    case "list": {
      const rows = await bots.listPresets(input.projectId);
      if (!rows.length) return "(none)";
      return rows.map((p) => `${p.id}  ${p.name}  forward=${p.forwardUrl ?? "-"}  commands=${(p.commands ?? []).map((c) => c.command).join(",") || "-"}`).join("\n");
    }
    case "delete": {
      const id = input.rest[0];
      if (!id) throw usage("presets delete needs a preset id");
      if (!(await bots.deletePreset(input.projectId, id))) throw usage(`no preset ${id} in ${input.projectId}`);
      return `deleted preset ${id}`;
    }
    default:
      throw usage(`unknown command: presets ${input.action ?? ""}`);
  }
}

function parseCommands(raw: string, usage: (message: string) => Error): BotCommandRecord[] {
  return raw.split(",").map((pair) => {
    const i = pair.indexOf("=");
    if (i < 1) throw usage(`--commands takes command=Description pairs separated by commas, got "${pair}"`);
    return { command: pair.slice(0, i).trim(), description: pair.slice(i + 1).trim() };
  });
}
