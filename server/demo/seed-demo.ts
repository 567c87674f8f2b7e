// The first start of the embedded default creates something to try at once: a demo project with
// the zone example.test hosted here, example.test connected as a mail domain (records published into
// the zone, verified by hosting), the mail host's address where it would resolve nowhere
// (mail-host.ts), and a key with every scope, printed once.
import { issueKey, type IssueKeyInput } from "../auth/issue-key.ts";
import { connectMailDomain, mailDomainDeps } from "../maildomains/handlers.ts";
import type { Services } from "../services.ts";
import { hostMailHost } from "./mail-host.ts";

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
  const { projectId, key } = await provisionProject(s, "Demo project", DEMO_ZONE, { name: "demo (all scopes)", scopes });
  // The demo's own mail must pass the receiving side's SPF check (decision S18).
  await hostMailHost(s.zones, s.config.mailHost);
  return { projectId, key, zone: DEMO_ZONE, mailDomain: DEMO_ZONE };
}

/**
 * A project with `zone` hosted here and bound to it, the same name connected as a mail domain
 * (its records published into the zone), and a key: the demo, and every test tenant.
 */
export async function provisionProject(
  s: Services,
  projectName: string,
  zone: string,
  key: Omit<IssueKeyInput, "projectId">,
): Promise<{ projectId: string; key: string }> {
  const project = await s.projects.create(projectName);
  await s.zones.createZone({ name: zone, projectId: project.id });
  // The zone is the project's, so the domain is verified by hosting at once (decision O3).
  await connectMailDomain(mailDomainDeps(s), project.id, zone);
  const issued = await issueKey(s.keys, { ...key, projectId: project.id });
  return { projectId: project.id, key: issued.key };
}
