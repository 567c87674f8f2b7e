// A shared preset as the configuration gives it (docs/decisions.md B2); checked by presets.ts's
// presetProblem. Its own file so the configuration's shape (server-config.ts) does not import the
// preset jobs, which import the messenger context, which imports the configuration.
import type { BotCommandRecord } from "./bot-repository.ts";

export interface PresetConfig {
  id: string;
  name: string;
  forwardUrl?: string | null;
  commands?: BotCommandRecord[];
  profile?: { description?: string; shortDescription?: string };
}
