// The refusal of anything that needs a verified domain (decision O1): sending from it, creating
// a mailbox or group on it. 409 `not_ready` names the domain, where its claim stands and the one
// record that proves control, so the caller knows what to publish; nothing is stored or queued.
import { ApiError } from "../../generated/server/errors.ts";
import type { MailDomainRecord } from "./maildomain-repository.ts";
import { verificationRecord } from "./verification.ts";

export function notVerifiedText(domain: MailDomainRecord): string {
  const state = domain.status === "pending" ? "not verified yet" : domain.status === "lost" ? "no longer verified (its proof is gone)" : "not this project's (its claim ended)";
  const why = domain.statusReason ? ` (${domain.statusReason})` : "";
  const next = domain.status === "ended"
    ? `connect it again (POST /v1/maildomains) once the other owner's proof is gone`
    : `publish ${verificationRecord(domain)}, or host its zone here, then GET /v1/maildomains/${domain.name} checks again`;
  return `the mail domain ${domain.name} is ${state}${why}: ${next}`;
}

export function notVerified(domain: MailDomainRecord, path: string): ApiError {
  const message = notVerifiedText(domain);
  return new ApiError(409, "not_ready", message, { details: [{ path, message }] });
}
