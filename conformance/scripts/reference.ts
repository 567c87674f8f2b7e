// npm run conformance:reference: the full suite against the reference server, started here on a
// free port with a fresh data dir (scripts/reference-server.ts). Extra arguments go to
// `platform-conformance run`; without --checks it runs all of them, webhook_signature_conformance
// included. Exits with the suite's verdict, 3 when the server is missing or
// does not start.
import { main } from "../cli.ts";
import { ReferenceUnavailable, startReference } from "./reference-server.ts";

let reference;
try {
  reference = await startReference();
} catch (error) {
  if (!(error instanceof ReferenceUnavailable)) throw error;
  console.error(`conformance:reference: ${error.message}`);
  process.exit(3);
}
// Every operation must reach its success path: a run that never saw a create succeed proves nothing.
// Every check, the opt-in webhook signature check included (the reference server emits events),
// unless the caller chose checks.
const args = process.argv.slice(2);
const checks = args.some((a) => a === "--checks" || a === "-c" || a.startsWith("--checks=")) ? [] : ["--checks", "all"];
const code = await main(["run", "--config", reference.configFile, "--strict-coverage", ...checks, ...args]);
await reference.stop();
process.exit(code);
