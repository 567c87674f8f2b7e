// Certificates' storage: the shared suite on both backends.
import { transaction } from "../db/database.ts";
import { systemClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { describeCertificateStorage, type CertificateStorage } from "./certificate-repository.contract.ts";
import { PgCertificateRepository } from "./pg-certificate-repository.ts";
import { SqliteCertificateRepository } from "./sqlite-certificate-repository.ts";

for (const backend of backends) {
  describeCertificateStorage(backend, (c): CertificateStorage => {
    if (c.backend === "sqlite") {
      const { db } = c;
      const r = new SqliteCertificateRepository(db, systemClock);
      // As the worker runs a job's write: inside its transaction.
      const inTx = async (fn: () => void) => transaction(db, fn);
      return {
        createPending: async (o, cap, also) => r.createPending(o, cap, (cert) => also?.(cert)),
        get: async (p, id) => r.get(p, id),
        getById: async (id) => r.getById(id),
        markActive: (id, i) => inTx(() => r.markActive(id, i)),
        markFailed: (id, reason) => inTx(() => r.markFailed(id, reason)),
        replace: (id, i) => inTx(() => r.replace(id, i)),
        recordRenewalFailure: (id, reason) => inTx(() => r.recordRenewalFailure(id, reason)),
        getLocalCa: async () => r.getLocalCa(),
        saveLocalCa: async (pem, key) => r.saveLocalCa(pem, key),
        getAcmeAccount: async (d) => r.getAcmeAccount(d),
        saveAcmeAccount: async (d, k, u) => r.saveAcmeAccount(d, k, u),
        trackChallengeRecord: async (id, z, rec) => r.trackChallengeRecord(id, z, rec),
        untrackChallengeRecord: async (z, rec) => r.untrackChallengeRecord(z, rec),
        challengeRecords: async (id) => r.challengeRecords(id),
      };
    }
    const { pg } = c;
    const r = new PgCertificateRepository(pg, systemClock);
    return {
      createPending: (o, cap, also) => r.createPending(o, cap, async (_c, cert) => also?.(cert)),
      get: (p, id) => r.get(p, id),
      getById: (id) => r.getById(id),
      markActive: (id, i) => pg.tx((t) => r.markActive(t, id, i)),
      markFailed: (id, reason) => pg.tx((t) => r.markFailed(t, id, reason)),
      replace: (id, i) => pg.tx((t) => r.replace(t, id, i)),
      recordRenewalFailure: (id, reason) => pg.tx((t) => r.recordRenewalFailure(t, id, reason)),
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
