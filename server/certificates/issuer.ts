// An issuer turns a CSR for names the platform controls into a PEM chain. Which one runs is the
// server's configuration (`certificates.issuer`): `local` (default) or `acme`.
import type { IssuerName } from "./certificate-repository.ts";

export interface IssueRequest {
  certificateId: string;
  domains: string[];
  csrPem: string;
}

export interface Issuer {
  name: IssuerName;
  /** The leaf first, then its chain (PEM). Throws IssuanceError when the CA says no. */
  issue(request: IssueRequest): Promise<string>;
}

/**
 * A failure with a reason for the order's status. `retryable` when the CA could not be reached or
 * answered with a server error: the job tries again later instead of failing the order.
 */
export class IssuanceError extends Error {
  readonly retryable: boolean;
  constructor(message: string, retryable: boolean) {
    super(message);
    this.retryable = retryable;
  }
}
