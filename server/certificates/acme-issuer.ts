// The `acme` issuer: the configured CA's directory, one account per directory whose key is
// created on first use and kept sealed with the server key, DNS-01 through our own zones.
import { AcmeUnreachable, newAccountKey, obtainCertificate } from "../adapters/acme-client.ts";
import type { AcmeConfig } from "../config.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { CertificateRepository } from "./certificate-repository.ts";
import { dnsChallengeResponder, removeLeftoverChallenges } from "./dns-challenge.ts";
import { IssuanceError, type Issuer } from "./issuer.ts";

export interface AcmeIssuerDeps {
  config: AcmeConfig;
  certs: CertificateRepository;
  zones: DnsRecordRepository;
  secrets: SecretBox;
}

export function acmeIssuer({ config, certs, zones, secrets }: AcmeIssuerDeps): Issuer {
  async function account() {
    let stored = await certs.getAcmeAccount(config.directoryUrl);
    if (!stored) {
      await certs.saveAcmeAccount(config.directoryUrl, secrets.seal(await newAccountKey()), null);
      stored = (await certs.getAcmeAccount(config.directoryUrl))!;
    }
    return stored;
  }

  return {
    name: "acme",
    async issue({ certificateId, csrPem }) {
      await removeLeftoverChallenges(zones, certs, certificateId);
      const stored = await account();
      try {
        const result = await obtainCertificate(
          {
            directoryUrl: config.directoryUrl,
            accountKeyPem: secrets.open(stored.keySealed),
            accountUrl: stored.accountUrl,
            eab: config.eabKid && config.eabHmacKey ? { kid: config.eabKid, hmacKey: config.eabHmacKey } : undefined,
            email: config.email || undefined,
          },
          csrPem,
          dnsChallengeResponder(zones, certs, certificateId),
          { pollMinMs: config.pollMinMs },
        );
        if (result.accountUrl !== stored.accountUrl) await certs.saveAcmeAccount(config.directoryUrl, stored.keySealed, result.accountUrl);
        return result.fullchain;
      } catch (error) {
        if (error instanceof AcmeUnreachable) throw new IssuanceError(`the CA could not be reached (${error.message})`, true);
        throw new IssuanceError(`the CA refused the order: ${(error as Error).message}`, false);
      } finally {
        // challengeRemoveFn already ran for every challenge it created; this catches a publish
        // that was recorded but never handed back (an error between insert and return).
        await removeLeftoverChallenges(zones, certs, certificateId);
      }
    },
  };
}
