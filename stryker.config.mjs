// Mutation testing of the modules that decide security or money (issue 18). Not part of `npm test`:
// on 2 shared cores one module takes minutes. Run through `npm run mutation` (scripts/mutation.ts),
// which mutates one module at a time, each with its own test files and its own incremental file,
// so `npm run mutation -- --mutate server/auth/rate-limiter.ts` redoes only that module, and only
// the mutants and tests that changed since the committed report.

/**
 * The critical modules and the test files that exercise each. Stryker runs, per mutant, only the
 * tests of these files that covered it; listing the files (instead of vitest's `related` mode,
 * which would pull in every test that starts the whole server) keeps a module's run to its own
 * tests, so its score says what those tests prove. The files reach vitest through
 * vitest.mutation.config.ts (its `include`), not through Stryker's `testFiles`: with `testFiles`,
 * Stryker 10.1 activates static mutants (module-level constants) only after the module has
 * loaded, so they all "survive" (stryker-js issues 6144, 6209).
 */
export const criticalModules = {
  // h18a
  "server/auth/rate-limiter.ts": ["server/auth/fixed-window-rate-limiter.test.ts"],
  "server/auth/authorize.ts": ["server/auth/authorize.test.ts"],
  "server/webhooks/webhook-url.ts": ["server/webhooks/webhook-url.test.ts"],
  "server/webmail/tokens.ts": ["server/webmail/tokens.test.ts", "server/webmail/lifetimes.test.ts"],
  // (the SQLite repository of h18a, one over the store since issue 37)
  "server/webmail/webmail-repository.ts": ["server/webmail/lifetimes.test.ts"],
  "server/dns/validate-record.ts": ["server/dns/validate-record.test.ts"],
  "server/dns/answer.ts": ["server/dns/answer.test.ts"],
  "server/adapters/address-policy.ts": ["server/adapters/address-policy.test.ts"],
  "server/adapters/outbound-http.ts": ["server/adapters/outbound-http-guard.test.ts", "server/adapters/outbound-http.test.ts"],
  // h18b: conformance checks, sending rules, DLP detectors, SMTP recipients, CSR checks, messenger token
  "server/mail-sending/suppression-rules.ts": ["server/mail-sending/sending-rules.test.ts"],
  "server/mail-sending/idempotency.ts": ["server/mail-sending/sending-rules.test.ts"],
  "server/inbound/recipient-check.ts": ["server/inbound/recipient-check.test.ts"],
  "server/messenger/secret-token.ts": ["server/messenger/secret-token.test.ts", "server/messenger/hook-routes.test.ts"],
  "server/messenger/hook-routes.ts": ["server/messenger/hook-routes.test.ts"],
  "server/certificates/own-csr.ts": ["server/certificates/own-csr.test.ts"],
  "conformance/checks/scope-enforcement.ts": ["conformance/checks/scope-enforcement.test.ts"],
  "conformance/checks/tenant-isolation.ts": ["conformance/checks/tenant-isolation.test.ts"],
  "server/dlp/detectors/card.ts": ["server/dlp/detectors/card.test.ts"],
  "server/dlp/detectors/iban.ts": ["server/dlp/detectors/iban.test.ts"],
  "server/dlp/detectors/track.ts": ["server/dlp/detectors/track.test.ts"],
  "server/dlp/detectors/detector.ts": ["server/dlp/detectors/labelled.test.ts"],
  "server/dlp/detectors/index.ts": ["server/dlp/detectors/labelled.test.ts"],
  "server/dlp/detectors/fin.ts": ["server/dlp/detectors/labelled-ids.test.ts"],
  "server/dlp/detectors/voen.ts": ["server/dlp/detectors/labelled-ids.test.ts"],
  "server/dlp/detectors/swift.ts": ["server/dlp/detectors/labelled-ids.test.ts"],
  "server/dlp/detectors/passport.ts": ["server/dlp/detectors/passport.test.ts"],
  // h18c
  "server/dlp/detectors/confidential.ts": ["server/dlp/detectors/confidential.test.ts"],
  "server/dlp/detectors/secret.ts": ["server/dlp/detectors/secret.test.ts"],
  // issue 41 item 6: the trust code of wave 3
  "server/mail-sending/tokens/message-token.ts": ["server/mail-sending/tokens/message-token.test.ts"],
  "server/mail-sending/verp.ts": ["server/mail-sending/verp.test.ts"],
  "server/mail-sending/header-rules.ts": ["server/mail-sending/header-rules.test.ts"],
  "server/inbound/dmarc-policy.ts": ["server/inbound/dmarc-action.test.ts"],
  "server/inbound/client-limits.ts": ["server/inbound/client-limits-unit.test.ts"],
  "server/maildomains/record-check.ts": ["server/maildomains/record-check.test.ts"],
  "server/maildomains/verification.ts": ["server/maildomains/verification.test.ts"],
  "server/mailboxes/released.ts": ["server/mailboxes/released.test.ts"],
  "server/webmail/frame-ancestors.ts": ["server/webmail/frame-ancestors.test.ts"],
};

/** Where a module's reports go; its incremental file is committed, so a rerun on a fresh clone is incremental too. */
export function reportNameFor(module) {
  return module
    .replace(/^server\//, "")
    .replace(/\.ts$/, "")
    .replaceAll("/", "--");
}

// scripts/mutation.ts runs Stryker once per module with MUTATION_MODULE set; a bare `stryker run`
// mutates every listed module in one run, with a report and an incremental file of its own.
const only = process.env.MUTATION_MODULE;
const name = only ? reportNameFor(only) : "all";
const listed = !only || only in criticalModules;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  // A module outside the list runs with the tests vitest finds related to it (slow: the server's).
  vitest: { configFile: "vitest.mutation.config.ts", related: !listed, pool: "forks" },
  // The TypeScript checker would compile the project per mutant: far too slow here, and the
  // type-invalid mutants it removes die in the tests anyway (node strips types, no compile step).
  checkers: [],
  coverageAnalysis: "perTest",
  mutate: only ? [only] : Object.keys(criticalModules),
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  concurrency: 2,
  timeoutMS: 20_000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/out/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/out/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // Sandboxes need only code and tests; the generated docs and local data are never read by them.
  ignorePatterns: [
    "generated/docs",
    "data",
    "build",
    "test-results",
    ".conformance",
    "conformance-report*",
  ],
};
