// What makes an order unacceptable beyond the contract's schema (which already checks the name
// syntax, a wildcard only as the leftmost label, and 1 to 100 names): a repeated name, a name
// outside the project's hosted zones (400 naming the field, docs/decisions.md E2), and an own
// CSR that does not fit (own-csr.ts).
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { FieldProblem } from "../http/errors.ts";
import { ownCsrProblem } from "./own-csr.ts";

export async function orderProblems(zones: DnsRecordRepository, projectId: string, domains: string[], csr: string | undefined): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, number>();
  for (const [i, raw] of domains.entries()) {
    const path = `body.domains.${i}`;
    const name = raw.toLowerCase();
    const first = seen.get(name);
    if (first !== undefined) {
      problems.push({ path, message: `repeats body.domains.${first}` });
      continue;
    }
    seen.set(name, i);
    // DNS-01 for *.example.test is answered at _acme-challenge.example.test: the base name's zone.
    const zone = await zones.findZoneForName(name.replace(/^\*\./, ""));
    if (!zone || zone.projectId !== projectId) problems.push({ path, message: "must be in a zone hosted here and bound to this project" });
  }
  if (csr !== undefined && problems.length === 0) {
    const problem = await ownCsrProblem(csr, domains);
    if (problem) problems.push({ path: "body.csr", message: problem });
  }
  return problems;
}
