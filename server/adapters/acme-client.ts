// ACME (RFC 8555) through acme-client: account, order, DNS-01 challenges, finalize, chain. The
// challenge records are published by the caller's responder (our own authoritative DNS); this
// module knows nothing of zones. The CA's address is operator configuration, not user input.
import https, { Agent } from "node:https";
import { rootCertificates } from "node:tls";
import acme from "acme-client";

export interface AcmeAccountSettings {
  directoryUrl: string;
  /** PEM; created with newAccountKey() on first use and kept sealed by the caller. */
  accountKeyPem: string;
  /** Known after the first order; saves a newAccount round trip. */
  accountUrl?: string | null;
  /** External account binding, for CAs that require one. */
  eab?: { kid: string; hmacKey: string };
  email?: string;
}

/** Publishes the TXT value at `_acme-challenge.<name>` and later removes it again. */
export interface Dns01Responder<Handle> {
  publish(challengeName: string, value: string): Promise<Handle>;
  remove(handle: Handle): Promise<void>;
}

export interface AcmeResult {
  fullchain: string;
  accountUrl: string;
}

/** Raised for faults of the transport (refused, timed out, TLS): worth another try later. */
export class AcmeUnreachable extends Error {}

/**
 * Extra CA certificates to trust for the directory's HTTPS (a private or test CA such as
 * Pebble's). acme-client shares one axios instance, so this holds for the whole process.
 */
let agent: Agent | undefined;
export function trustForAcme(extraCaPem: string | undefined): void {
  agent = extraCaPem ? new Agent({ ca: [...rootCertificates, extraCaPem], keepAlive: true }) : undefined;
  acme.axios.defaults.httpsAgent = agent;
  // axios has no timeout by default; a CA that never answers must not hold a job for its lease.
  acme.axios.defaults.timeout = 30_000;
}

export async function newAccountKey(): Promise<string> {
  return (await acme.crypto.createPrivateEcdsaKey("P-256")).toString();
}

/**
 * One plain GET of the directory first: acme-client turns a transport failure (refused, reset,
 * TLS) into a TypeError once its retries are spent, which would read as the CA refusing the
 * order. This tells "unreachable" apart, with the system error's code.
 */
function directoryReachable(directoryUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = https.get(directoryUrl, { agent, timeout: 15_000 }, (res) => {
      res.resume();
      if ((res.statusCode ?? 0) >= 500) reject(new AcmeUnreachable(`directory answered HTTP ${res.statusCode}`));
      else resolve();
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error("no answer within 15 s"), { code: "ETIMEDOUT" })));
    req.on("error", (error: Error & { code?: string }) => reject(new AcmeUnreachable(`${error.code ?? "error"}: ${error.message}`)));
  });
}

export async function obtainCertificate<Handle>(
  account: AcmeAccountSettings,
  csrPem: string,
  dns01: Dns01Responder<Handle>,
  options: { pollMinMs?: number } = {},
): Promise<AcmeResult> {
  const client = new acme.Client({
    directoryUrl: account.directoryUrl,
    accountKey: account.accountKeyPem,
    accountUrl: account.accountUrl ?? undefined,
    externalAccountBinding: account.eab,
    // Validation usually completes within a second; poll soon, then back off to 10 s.
    backoffMin: options.pollMinMs ?? 1000,
    backoffMax: 10_000,
    backoffAttempts: 12,
  });
  await directoryReachable(account.directoryUrl);
  // keyAuthorization -> handle; a wildcard and its apex publish two values at one name.
  const published = new Map<string, Handle>();
  try {
    const fullchain = await client.auto({
      csr: csrPem,
      email: account.email,
      termsOfServiceAgreed: true,
      challengePriority: ["dns-01"],
      // The records are in our own authoritative server; asking the system resolver would only
      // see caches. The CA validates.
      skipChallengeVerification: true,
      challengeCreateFn: async (authz, challenge, keyAuthorization) => {
        if (challenge.type !== "dns-01") throw new Error(`${authz.identifier.value}: the CA offers no dns-01 challenge`);
        published.set(keyAuthorization, await dns01.publish(`_acme-challenge.${authz.identifier.value}`, keyAuthorization));
      },
      challengeRemoveFn: async (_authz, _challenge, keyAuthorization) => {
        const handle = published.get(keyAuthorization);
        published.delete(keyAuthorization);
        if (handle !== undefined) await dns01.remove(handle);
      },
    });
    return { fullchain, accountUrl: client.getAccountUrl() };
  } catch (error) {
    // A problem document from the CA is a plain Error with the CA's text. A TypeError is
    // acme-client losing the connection mid-order (see directoryReachable).
    if (error instanceof TypeError) throw new AcmeUnreachable(`connection lost during the order (${error.message})`);
    throw error;
  }
}
