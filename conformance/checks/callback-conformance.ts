// An operation's callbacks (OpenAPI Callback Objects) are checked, not only read: the suite runs a
// receiver, puts its URL where the callback's runtime expression reads it (`{$request.body#/url}`,
// a query parameter, a header), sends the operation, and judges the request the implementation
// sends there: its method, Content-Type and body against the callback's schema; the receiver
// answers a status the callback documents. What cannot be checked (a literal callback address, an
// operation refused, no callback within the wait) is a WARNING naming the callback, never a pass.
import type { Check, CheckContext } from "../engine/check-api.ts";
import { caseIsValid } from "../engine/case-arbitrary.ts";
import { startReceiver, type Delivery } from "../engine/receiver.ts";
import { mediaMatches, mediaType, short } from "../engine/response-spec.ts";
import { callbackTarget, placeInCase } from "../engine/runtime-expression.ts";
import type { CallbackSpec, Finding, Operation } from "../engine/types.ts";
import { validate } from "../engine/validator.ts";

/** How long the implementation has to send a callback after the operation answered. */
const DEFAULT_WAIT_MS = 5000;

export const callbackConformance: Check = {
  name: "callback_conformance",
  title: "Callback request does not conform",
  severity: "high",
  stateless: false,
  // A callback needs no state the stateful phase builds: it runs with the coverage phase's probes,
  // so runs that leave the stateful phase out (mocks, bench:contracts) check callbacks too.
  phase: "coverage",
  async probe(ctx, op) {
    if (!op.callbacks?.length) return null;
    const findings: Finding[] = [];
    let judged = false;
    for (const callback of op.callbacks) {
      const outcome = await checkCallback(ctx, op, callback);
      if (typeof outcome === "string") ctx.notice(`callback ${callback.name} (${callback.expression}) of ${op.id} not checked: ${outcome}`);
      else {
        judged = true;
        findings.push(...outcome);
      }
    }
    return judged ? findings : null;
  },
};

async function checkCallback(ctx: CheckContext, op: Operation, callback: CallbackSpec): Promise<Finding[] | string> {
  const target = callbackTarget(callback.expression);
  if (!target) return "its address is not taken from the request, so the suite cannot receive it";
  const sample = ctx.sampleCase(op, 53);
  if (!sample) return "no valid request of the operation could be drawn";
  const documented = callback.requests.flatMap((r) => r.statuses);
  const answer = Number(documented.find((s) => /^2\d\d$/.test(s)) ?? 200);
  // http first; https (self-signed) where the schema only takes https URLs.
  for (const protocol of ["http", "https"] as const) {
    const receiver = await startReceiver(protocol, answer);
    try {
      const c = placeInCase(sample, target.location, receiver.url.replace(/\/hook$/, "/callback") + target.suffix);
      if (!caseIsValid(op, c)) continue;
      const ex = await ctx.send(op, c, { probe: "callback_conformance" });
      if (ex.response.status >= 300 || ex.response.noResponse !== undefined) return `the operation answered ${ex.response.noResponse ?? ex.response.status}, so no callback was due`;
      const waitMs = ctx.config.callbacks?.waitMs ?? DEFAULT_WAIT_MS;
      const delivery = await receiver.waitFor(() => true, waitMs);
      if (!delivery) return `no request reached the receiver within ${waitMs} ms (config callbacks.waitMs)`;
      return judge(callback, delivery, ex.request);
    } finally {
      await receiver.close();
    }
  }
  return "the receiver's URL (http or https on 127.0.0.1) is not a valid value where the callback's address goes";
}

function judge(callback: CallbackSpec, d: Delivery, cause: Finding["request"]): Finding[] {
  const label = `callback ${callback.name}`;
  const request = callback.requests.find((r) => r.method === d.method);
  if (!request) return [{ title: "Callback with an undocumented method", message: `${label} came as ${d.method}`, expected: callback.requests.map((r) => r.method).join(" or "), got: d.method, request: cause }];
  const documented = Object.keys(request.content);
  if (!documented.length) return [];
  const actual = mediaType(d.headers["content-type"]);
  if (!d.body.length) return request.bodyRequired ? [{ title: "Callback without its body", message: `${label} ${d.method} came without a body`, expected: documented.join(" or "), got: "(empty)", request: cause }] : [];
  const media = actual ? documented.find((m) => mediaMatches(m, actual)) : undefined;
  if (!media) return [{ title: "Callback with an undocumented Content-Type", message: `${label} ${d.method} came as ${actual ?? "(none)"}`, expected: documented.join(" or "), got: actual ?? "(none)", request: cause }];
  const schema = request.content[media].schema;
  if (schema === undefined || !/json/i.test(media)) return [];
  let body: unknown;
  try {
    body = JSON.parse(d.body);
  } catch {
    return [{ title: "Callback body is not JSON", message: `${label} ${d.method} body is not JSON`, expected: media, got: short(d.body, 120), request: cause }];
  }
  const verdict = validate(schema, body);
  if (verdict.valid || verdict.unvalidated) return [];
  return [{ title: "Callback body violates schema", message: `${label} ${d.method}: ${verdict.errors.join("; ")}`, expected: "the callback's documented body", got: short(d.body), request: cause }];
}
