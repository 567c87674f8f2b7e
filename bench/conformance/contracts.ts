// npm run bench:contracts: the suite on the public contracts of conformance/fixtures/contracts/
// (issue 19). Per contract, in its own process so peak memory is its own: load time and peak RSS
// of loadContract, then a smoke run (stateless checks, --max-examples small, seed 1, positive
// mode) against `prism mock` of the contract, or, where Prism does not start in time (Stripe),
// against the suite's own contract-driven fixture server with credentials accepted and bodies
// taken as sent. Prints requests, results and warnings per contract, and a Markdown table.
// Loopback only; every run has a deadline. A multi-file contract (`*.files.json.gz`, DigitalOcean's)
// is written out to a folder first and read from there, references and all. "Own" failures are
// those on requests the suite called valid that the server refused by its own reading of the
// contract (bench/own-failures.ts): the suite's mistakes, which should be 0.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { parseArgs } from "node:util";
import { loadContract } from "../../conformance/engine/load-contract.ts";
import { run } from "../../conformance/engine/runner.ts";
import { correctBehaviour, serve, type Options } from "../../conformance/fixtures/contract-server.ts";
import { World } from "../../conformance/fixtures/world.ts";
import { freePort, waitForHttp } from "../../conformance/scripts/free-port.ts";
import { unpackFileSet } from "../../conformance/fixtures/file-set.ts";
import { ownRequests, requestKey } from "./own-failures.ts";

const DIR = path.resolve(import.meta.dirname, "../../conformance/fixtures/contracts");
const ROOT = path.resolve(import.meta.dirname, "../..");
const CONTRACTS = [
  "stripe-spec3.json.gz",
  "github-api.github.com.json.gz",
  "twilio_api_v2010.json.gz",
  "openai-openapi.yaml.gz",
  // issue 29: multi-file, header parameters named Accept/Content-Type, readOnly/writeOnly
  "digitalocean-public.files.json.gz",
  // readOnly (360 properties)
  "asana_oas.yaml.gz",
  // paths with a fragment (`/files/{file_id}#get_shared_link`)
  "box-openapi.json.gz",
  // contracts outside the corpus (CL10-CL13): OpenAPI 3.1 with `const` (659), `type` arrays with null (904), contentEncoding, multipart
  "discord-openapi.json.gz",
  // OpenAPI 3.1, discriminator mappings, nullable type arrays
  "adyen-BalancePlatformService-v2.json.gz",
  // OpenAPI 3.1 with `webhooks`, an image response, examples maps
  "museum-openapi.yaml.gz",
  // the Swagger 2.0 lineage: XML bodies and responses, forms, octet-stream uploads
  "petstore3-openapi.yaml.gz",
  // issue 39: the OpenAPI Initiative's own examples of a callback (address from a query parameter,
  // a suffix after it, a reference that points at nothing) and of 3.1 `webhooks` beside one path
  "oai-callback-example.yaml.gz",
  "oai-webhook-example.yaml.gz",
];

const { values: args } = parseArgs({
  options: {
    one: { type: "string" },
    only: { type: "string" },
    "max-examples": { type: "string", default: "3" },
    "prism-start-s": { type: "string", default: "120" },
    // Prism does not start on Stripe's contract (issue 19): the fixture server, without the wait
    fixture: { type: "string", default: "stripe" },
    "deadline-s": { type: "string", default: "600" },
  },
});

interface Row {
  contract: string;
  operations: number;
  loadMs: number;
  loadRssMb: number;
  server: string;
  requests: number;
  passed: number;
  failed: number;
  /** failing pairs whose failing request the server refused as not what the contract allows */
  own: number;
  unvalidated: number;
  warnings: number;
  runS: number;
  peakRssMb: number;
  /** failing (operation, check) pairs by check */
  failedBy: Record<string, number>;
  note?: string;
}

// conformance:mock's list (scripts/mock.ts, which starts Prism on import): the checks a stateless
// mock can pass; and since issue 39, error_body_conformance (each operation's errors judged by its
// own documented schema only, no longer by this platform's `{error, code}`) and callback_conformance
// (Prism, and the fixture, send a contract's callbacks).
const STATELESS_CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance", "response_headers_conformance", "response_schema_conformance", "error_body_conformance", "callback_conformance", "unsupported_method", "success_coverage"];

const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** The contract as a plain file Prism can read (a multi-file one written out as its files). */
/** The unpacked copies of this process, removed when it exits (they were left in /tmp). */
const copies: string[] = [];
process.on("exit", () => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

function plainCopy(file: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-contracts-"));
  copies.push(dir);
  if (file.endsWith(".files.json.gz")) return unpackFileSet(file, dir);
  const plain = path.join(dir, path.basename(file).replace(/\.gz$/, ""));
  writeFileSync(plain, gunzipSync(readFileSync(file)));
  return plain;
}

async function startPrism(plain: string): Promise<{ url: string; stop(): void } | string> {
  const port = await freePort();
  const prism = spawn(process.execPath, [path.join(ROOT, "node_modules/@stoplight/prism-cli/dist/index.js"), "mock", plain, "-h", "127.0.0.1", "-p", String(port), "--errors", "false"], { cwd: ROOT, stdio: "ignore" });
  let alive = true;
  prism.on("exit", () => (alive = false));
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  if (await waitForHttp(`${url}/`, Number(args["prism-start-s"]) * 1000, () => alive)) return { url, stop: () => void prism.kill("SIGKILL") }; // the process exits right after: SIGTERM left Prism running
  prism.kill("SIGKILL");
  return alive ? `Prism did not answer within ${args["prism-start-s"]} s` : `Prism exited after ${Math.round((Date.now() - t0) / 1000)} s without serving`;
}

/** The fixture server on a foreign contract: any credential is accepted, bodies are not re-judged. */
async function startFixture(contract: Awaited<ReturnType<typeof loadContract>>) {
  const world = new World();
  world.addProject("p1", {});
  const options: Options = { owned: {} };
  const base = correctBehaviour(contract, options);
  const key = world.keys.get(world.addKey("p1", contract.scopes))!;
  const behaviour = {
    ...base,
    authenticate: () => key,
    validate: (input: Parameters<typeof base.validate>[0]) => (/json/i.test(input.headers["content-type"] ?? "json") ? base.validate(input) : undefined),
    // A response the fixture cannot synthesize is its own 500 (counted, visible), not a crash.
    handle: (input: Parameters<typeof base.handle>[0], w: World) => {
      try {
        return base.handle(input, w);
      } catch (error) {
        return { status: 500, body: { error: (error as Error).message, code: "fixture_cannot_synthesize" } };
      }
    },
  };
  const server = await serve(contract, behaviour, world, options);
  return { url: server.url, stop: () => void server.close() };
}

/** The server of the run in progress: stopped on the deadline too (Prism outlived its process). */
let running: { stop(): void } | undefined;

async function measureOne(archive: string): Promise<Row> {
  const file = archive.endsWith(".files.json.gz") ? plainCopy(archive) : archive;
  const t0 = performance.now();
  const contract = await loadContract(file);
  const loadMs = Math.round(performance.now() - t0);
  const loadRssMb = rssMb();
  const fixtureFirst = args.fixture!.split(",").some((f) => f && path.basename(file).includes(f));
  const prism = fixtureFirst ? "Prism does not start on it" : await startPrism(file.endsWith(".gz") ? plainCopy(file) : file);
  let server = typeof prism === "string" ? undefined : prism;
  let kind = "prism";
  let note: string | undefined;
  if (!server) {
    note = prism as string;
    server = await startFixture(contract);
    kind = "fixture";
  }
  running = server;
  try {
    const checks = STATELESS_CHECKS;
    const result = await run({ spec: file, baseUrl: server.url, checks, phases: ["examples", "coverage", "fuzzing"], mode: "positive", maxExamples: Number(args["max-examples"]), seed: 1, workers: 2, config: { keys: { all: "sk_test_bench" }, hooks: path.join(import.meta.dirname, "own-failures.ts") } });
    const { passed, failed, unvalidated } = result.ledger.totals();
    // BENCH_SHOW=failures: every failure on stderr, to be read (what the table only counts).
    if (process.env.BENCH_SHOW?.split(",").includes("failures"))
      for (const f of result.ledger.failures) console.error(JSON.stringify({ check: f.check, operation: f.operation, status: f.status, message: f.message.slice(0, 400), expected: f.expected?.slice(0, 300), got: f.got?.slice(0, 300), request: `${f.request.method} ${f.request.url}` }));
    // BENCH_SHOW=warnings: every WARNING line and warning-level finding, to be read as well.
    if (process.env.BENCH_SHOW?.split(",").includes("warnings")) {
      for (const n of result.ledger.notices) console.error(JSON.stringify({ warning: n.slice(0, 600) }));
      for (const w of result.ledger.warnings) console.error(JSON.stringify({ warning: w.check, operation: w.operation, message: w.message.slice(0, 400) }));
    }
    const own = ownRequests();
    return {
      contract: path.basename(archive),
      operations: contract.operations.length,
      loadMs,
      loadRssMb,
      server: kind,
      requests: result.ledger.requests,
      passed,
      failed,
      own: result.ledger.failures.filter((f) => own.has(requestKey(f.request))).length,
      unvalidated,
      warnings: result.ledger.notices.length + result.ledger.warnings.length,
      runS: Math.round(result.durationMs / 100) / 10,
      peakRssMb: rssMb(),
      failedBy: Object.fromEntries(Object.entries(Object.groupBy(result.ledger.failures, (f) => f.check)).map(([k, v]) => [k, v!.length])),
      note,
    };
  } finally {
    server.stop();
  }
}

if (args.one) {
  const deadline = setTimeout(() => {
    console.log(JSON.stringify({ contract: path.basename(args.one!), error: `over the ${args["deadline-s"]} s deadline` }));
    running?.stop();
    process.exit(1);
  }, Number(args["deadline-s"]) * 1000);
  const row = await measureOne(args.one).catch((e: Error) => ({ contract: path.basename(args.one!), error: e.message, stack: e.stack?.split("\n").slice(0, 6).join(" | ") }));
  console.log(JSON.stringify(row));
  clearTimeout(deadline);
  process.exit(0);
}

const rows: (Row | { contract: string; error: string })[] = [];
for (const name of CONTRACTS.filter((c) => !args.only || c.includes(args.only))) {
  const child = spawn(process.execPath, [import.meta.filename, "--one", path.join(DIR, name), "--max-examples", args["max-examples"]!, "--prism-start-s", args["prism-start-s"]!, "--deadline-s", args["deadline-s"]!, "--fixture", args.fixture!], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (c) => (out += c));
  await new Promise((r) => child.on("exit", r));
  const last = out.trim().split("\n").filter((l) => l.startsWith("{")).at(-1);
  const row = last ? JSON.parse(last) : { contract: name, error: "no result" };
  rows.push(row);
  console.error(JSON.stringify(row));
}
console.log(`\n--max-examples ${args["max-examples"]}, seed 1, stateless checks, positive mode, phases examples,coverage,fuzzing; ${os.cpus().length} cores\n`);
console.log("| contract | operations | load | peak RSS after load | server | requests | passed | failed | of them the suite's own | unvalidated | warnings | run | peak RSS |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) {
  if ("error" in r) console.log(`| ${r.contract} | | | | | | | | | | | ${r.error} | |`);
  else console.log(`| ${r.contract} | ${r.operations} | ${(r.loadMs / 1000).toFixed(2)} s | ${r.loadRssMb} MB | ${r.server}${r.note ? ` (${r.note})` : ""} | ${r.requests} | ${r.passed} | ${r.failed} | ${r.own} | ${r.unvalidated} | ${r.warnings} | ${r.runS} s | ${r.peakRssMb} MB |`);
}
for (const r of rows) if (!("error" in r)) console.log(`${r.contract} failures by check: ${Object.entries(r.failedBy).map(([k, n]) => `${k} ${n}`).join(", ") || "none"}`);
