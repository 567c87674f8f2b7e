// The registry, in the order failures are most useful to read.
import type { Check } from "../engine/check-api.ts";
import { callbackConformance } from "./callback-conformance.ts";
import { contentTypeConformance } from "./content-type-conformance.ts";
import { ensureResourceAvailability } from "./ensure-resource-availability.ts";
import { errorBodyConformance } from "./error-body-conformance.ts";
import { ignoredAuth } from "./ignored-auth.ts";
import { missingRequiredHeader } from "./missing-required-header.ts";
import { negativeDataRejection } from "./negative-data-rejection.ts";
import { notAServerError } from "./not-a-server-error.ts";
import { positiveDataAcceptance } from "./positive-data-acceptance.ts";
import { rateLimitConformance } from "./rate-limit-conformance.ts";
import { responseHeadersConformance } from "./response-headers-conformance.ts";
import { responseSchemaConformance } from "./response-schema-conformance.ts";
import { scopeEnforcement } from "./scope-enforcement.ts";
import { statusCodeConformance } from "./status-code-conformance.ts";
import { successCoverage } from "./success-coverage.ts";
import { tenantIsolation } from "./tenant-isolation.ts";
import { unsupportedMethod } from "./unsupported-method.ts";
import { useAfterFree } from "./use-after-free.ts";
import { webhookSignatureConformance } from "./webhook-signature-conformance.ts";

export const allChecks: Check[] = [
  notAServerError,
  statusCodeConformance,
  contentTypeConformance,
  responseHeadersConformance,
  responseSchemaConformance,
  negativeDataRejection,
  positiveDataAcceptance,
  missingRequiredHeader,
  unsupportedMethod,
  useAfterFree,
  ensureResourceAvailability,
  ignoredAuth,
  scopeEnforcement,
  tenantIsolation,
  errorBodyConformance,
  rateLimitConformance,
  webhookSignatureConformance,
  callbackConformance,
  successCoverage,
];
