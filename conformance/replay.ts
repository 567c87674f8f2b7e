// Re-sends every failure of a JSON report and says which still fail. Response checks are judged
// again on the new answer; for probe checks the failure stands while the same status comes back.
import { readFile } from "node:fs/promises";
import { allChecks } from "./checks/index.ts";
import { createHttpClient } from "./engine/http-client.ts";
import { ContractError, loadContract } from "./engine/load-contract.ts";
import { configuredErrorSchema } from "./engine/error-schema.ts";
import { toCurl } from "./engine/request.ts";
import { isUnvalidated, type CheckContext } from "./engine/check-api.ts";
import type { Exchange } from "./engine/types.ts";
import type { JsonReport } from "./reports/json.ts";

export async function replay(file: string, baseUrl?: string): Promise<number> {
  let report: JsonReport;
  try {
    report = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ContractError(`cannot read report ${file}: ${(error as Error).message}`);
  }
  const contract = await loadContract(report.spec);
  const client = createHttpClient();
  const ctx = { contract, errorSchema: configuredErrorSchema(contract, report.errorSchema ?? undefined), config: { operations: {}, values: {}, dir: "." } } as unknown as CheckContext;
  let still = 0;
  try {
    for (const f of report.failures) {
      if (!f.request.url.startsWith("http")) {
        console.log(`SKIP ${f.check} ${f.operation}: no single request to replay`);
        continue;
      }
      const request = baseUrl ? { ...f.request, url: f.request.url.replace(report.baseUrl.replace(/\/$/, ""), baseUrl.replace(/\/$/, "")) } : f.request;
      const response = await client.send(request).catch((e) => ({ status: 0, headers: {}, text: "", isJson: false, noResponse: String(e.message) }));
      const check = allChecks.find((c) => c.name === f.check);
      const op = contract.operations.find((o) => o.id === f.operation);
      let failing: boolean;
      // No answer at all is not a fix (a stopped server "fixed" everything).
      if (response.noResponse !== undefined) failing = true;
      else if (check?.response && op) {
        // The case's mode as the run recorded it: guessing it from the message read a server's
        // `invalid_request` body as a negative case, and replay called the very same 400 FIXED.
        const mode = f.mode ?? (/^invalid input accepted/.test(f.message) ? "negative" : "positive");
        const ex: Exchange = { operation: op, request, response, phase: f.phase, keyRole: f.keyRole ?? "default", probe: f.probe, case: { operationId: op.id, pathParams: {}, query: {}, headers: {}, hasBody: request.body !== undefined, mode, mutation: f.message } };
        const findings = check.response(ctx, ex);
        // A failure recorded before cannot be "fixed" by a schema that can no longer be compiled.
        failing = isUnvalidated(findings) || (findings ?? []).length > 0;
      } else failing = response.status === f.status;
      if (failing) still++;
      const now = response.noResponse === undefined ? String(response.status) : `no response (${response.noResponse})`;
      console.log(`${failing ? "STILL FAILING" : "FIXED"} ${f.check} ${f.operation}: now ${now}\n  ${toCurl(request)}`);
    }
  } finally {
    client.close();
  }
  console.log(`${report.failures.length - still} fixed, ${still} still failing`);
  return still ? 1 : 0;
}
