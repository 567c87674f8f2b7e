// Certificates' storage: the shared suite on both backends, through the one CertificateRepository
// interface; a job's writes each in a transaction of its own, as the worker records them.
import { transaction } from "../db/database.ts";
import { writeOnSqlite, type TxWrite } from "../db/tx.ts";
import { systemClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import type { CertificateRepository } from "./certificate-repository.ts";
import { describeCertificateStorage, type CertificateStorage } from "./certificate-repository.contract.ts";
import { PgCertificateRepository } from "./pg-certificate-repository.ts";
import { SqliteCertificateRepository } from "./sqlite-certificate-repository.ts";

function storage(r: CertificateRepository, inTx: (write: TxWrite) => Promise<void>): CertificateStorage {
  return {
    createPending: (o, cap, also) => r.createPending(o, cap, (_tx, cert) => also?.(cert)),
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
}

for (const backend of backends) {
  describeCertificateStorage(backend, (c): CertificateStorage => {
    if (c.backend === "sqlite") {
      const { db } = c;
      return storage(new SqliteCertificateRepository(db, systemClock), async (write) => transaction(db, () => writeOnSqlite(write, db)));
    }
    const { pg } = c;
    return storage(new PgCertificateRepository(pg, systemClock), (write) => pg.tx(async (client) => write({ kind: "postgres", c: client })));
  });
}
