// The stub templates live in templates/server/; the engine is shared with the client generator.
import { renderTemplate as renderShared } from "../template.ts";

export function renderTemplate(name: string, values: Record<string, string> = {}): Promise<string> {
  return renderShared(`server/${name}`, values);
}
