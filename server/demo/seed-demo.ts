// The first start of the embedded default creates something to try at once: a demo project with
// the zone example.test hosted here, example.test connected as a mail domain (records published into
// the zone), and a key with every scope, printed once.
import { issueKey } from "../auth/issue-key.ts";
import { connectMailDomain } from "../maildomains/handlers.ts";
import type { Services } from "../services.ts";

// example.test is the domain of every example in the contract, so the examples run as they are.
export const DEMO_ZONE = "example.test";

export interface DemoResult {
  projectId: string;
  key: string;
  zone: string;
  mailDomain: string;
}

/** Undefined when the database already holds a project (not a first start). */
export async function seedDemo(s: Services, scopes: string[]): Promise<DemoResult | undefined> {
  if ((await s.projects.list()).length > 0) return undefined;
  const project = await s.projects.create("Demo project");
  await s.zones.createZone({ name: DEMO_ZONE, projectId: project.id });
  await connectMailDomain({ mailDomains: s.mailDomains, zones: s.zones, mailHost: s.config.mailHost }, project.id, DEMO_ZONE);
  const { key } = await issueKey(s.keys, { projectId: project.id, name: "demo (all scopes)", scopes });
  return { projectId: project.id, key, zone: DEMO_ZONE, mailDomain: DEMO_ZONE };
}
