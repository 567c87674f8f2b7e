// npm run conformance:mock: the stateless checks against the Prism mock of the contract. A mock
// answers from examples and validates requests, but keeps no state, issues no keys and counts
// nothing; the checks it cannot pass are excluded here and listed, with the reason, in README.md.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { main, DEFAULT_SPEC } from "../cli.ts";
import { freePort, waitForHttp } from "./free-port.ts";

export const STATELESS_CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
  "unsupported_method",
  "success_coverage",
];

const root = path.resolve(import.meta.dirname, "../..");
const port = await freePort();
// Prism's log printer crashes the mock on some fuzzed requests (createServer.js constructPrefix:
// a log line it re-parses comes back without its logger name, "reading 'index'"), so it logs
// nothing; its output was not read anyway (readiness is an HTTP probe).
const prism = spawn(path.join(root, "node_modules/.bin/prism"), ["mock", DEFAULT_SPEC, "-h", "127.0.0.1", "-p", String(port), "--errors", "false", "--verboseLevel", "silent"], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
});
let alive = true;
prism.on("exit", () => (alive = false));
process.on("exit", () => alive && prism.kill("SIGTERM"));

if (!(await waitForHttp(`http://127.0.0.1:${port}/v1/groups`, 60_000, () => alive))) {
  console.error("conformance:mock: Prism did not start");
  process.exit(2);
}
// Prism answers an undeclared method 405 without the Allow header RFC 9110 requires (README).
const config = path.join(mkdtempSync(path.join(os.tmpdir(), "conformance-mock-")), "config.json");
writeFileSync(config, JSON.stringify({ requireAllowHeader: false }));
// Prism has no serializer for a binary body ("Cannot find serializer for application/octet-stream",
// a 500 on every request): the downloads of decision M9 are left to the reference server (README).
const PRISM_CANNOT_SERVE = ["getMailboxMessageAttachment", "getMailboxMessageRaw"];
const code = await main([
  "run", "--config", config, ...PRISM_CANNOT_SERVE.flatMap((id) => ["--exclude-operation-id", id]), "--base-url", `http://127.0.0.1:${port}`, "--checks", STATELESS_CHECKS.join(","), "--phases", "examples,coverage,fuzzing",
  "--mode", "positive", "--strict-coverage", "-H", `Authorization: Bearer platform_sk_${"0".repeat(32)}`, ...process.argv.slice(2),
]);
prism.kill("SIGTERM");
process.exit(code);
