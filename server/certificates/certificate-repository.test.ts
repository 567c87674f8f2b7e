// Certificates' storage: the shared suite on both stores, through the one CertificateRepository;
// an order in a transaction of its own (its caller's), a job's writes each in a transaction of
// its own, as the worker records them.
import type { Sql } from "../db/sql.ts";
import { systemClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { describeCertificateStorage, type CertificateStorage } from "./certificate-repository.contract.ts";
import { SqlCertificateRepository } from "./certificate-repository.ts";

for (const backend of backends) {
  describeCertificateStorage(backend, (c): CertificateStorage => {
    const r = new SqlCertificateRepository(c.store, systemClock);
    const inTx = (write: (tx: Sql) => Promise<void>) => c.store.transaction(write);
    return {
      createPending: (o, cap, also) => c.store.transaction(async (tx) => {
        const cert = await r.createPending(tx, o, cap);
        if (cert) also?.(cert);
        return cert;
      }),
      get: (p, id) => r.get(p, id),
      getById: (id) => r.getById(id),
      markActive: (id, i) => inTx((tx) => r.markActive(tx, id, i)),
      markFailed: (id, reason) => inTx((tx) => r.markFailed(tx, id, reason)),
      replace: (id, i) => inTx((tx) => r.replace(tx, id, i)),
      recordRenewalFailure: (id, reason) => inTx((tx) => r.recordRenewalFailure(tx, id, reason)),
      getLocalCa: () => r.getLocalCa(),
      saveLocalCa: (pem, key) => r.saveLocalCa(pem, key),
      getAcmeAccount: (d) => r.getAcmeAccount(d),
      saveAcmeAccount: (d, k, u) => r.saveAcmeAccount(d, k, u),
      trackChallengeRecord: (id, z, rec) => r.trackChallengeRecord(id, z, rec),
      untrackChallengeRecord: (z, rec) => r.untrackChallengeRecord(z, rec),
      challengeRecords: (id) => r.challengeRecords(id),
    };
  });
}
