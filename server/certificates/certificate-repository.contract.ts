// The behaviour of the certificates storage on either backend (server/test/backends.ts), seen
// through one asynchronous face; a job's writes each in a transaction of its own, as the worker
// records them.
import { beforeAll, describe, expect, it } from "vitest";
import { newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { Certificate, IssuedCertificate, NewOrder } from "./certificate-repository.ts";

export interface CertificateStorage {
  /** `also` runs in the order's transaction; throwing there rolls the order back. */
  createPending(order: NewOrder, cap: number, also?: (cert: Certificate) => void): Promise<Certificate | undefined>;
  get(projectId: string, id: string): Promise<Certificate | undefined>;
  getById(id: string): Promise<Certificate | undefined>;
  markActive(id: string, issued: IssuedCertificate): Promise<void>;
  markFailed(id: string, reason: string): Promise<void>;
  replace(id: string, issued: IssuedCertificate): Promise<void>;
  recordRenewalFailure(id: string, reason: string): Promise<void>;
  getLocalCa(): Promise<{ certPem: string; keySealed: string } | undefined>;
  saveLocalCa(certPem: string, keySealed: string): Promise<{ certPem: string; keySealed: string }>;
  getAcmeAccount(directoryUrl: string): Promise<{ keySealed: string; accountUrl: string | null } | undefined>;
  saveAcmeAccount(directoryUrl: string, keySealed: string, accountUrl: string | null): Promise<void>;
  trackChallengeRecord(certificateId: string, zone: string, recordId: string): Promise<void>;
  untrackChallengeRecord(zone: string, recordId: string): Promise<void>;
  challengeRecords(certificateId: string): Promise<{ zone: string; recordId: string }[]>;
}

const order = (projectId: string, over: Partial<NewOrder> = {}): NewOrder => ({ projectId, domains: ["www.example.test", "example.test"], issuer: "local", autoRenew: true, ownCsr: null, ...over });
const issued = (n: number): IssuedCertificate => ({ fullchain: `-----CHAIN ${n}-----`, keySealed: `key${n}`, notBefore: 1_000 * n, notAfter: 1_000 * n + 90 * 86_400_000 });

export function describeCertificateStorage(backend: BackendName, make: (c: Connection) => CertificateStorage): void {
  describe(`certificate storage on ${backend}`, () => {
    const store = useStore(backend);
    let s: CertificateStorage;
    beforeAll(() => {
      s = make(store.main);
    });

    it("stores a pending order with its job in one transaction, readable only within its project", async () => {
      const p = await newProject(store.main);
      const seen: string[] = [];
      const cert = (await s.createPending(order(p, { ownCsr: "-----CSR-----", autoRenew: false }), 10, (c) => void seen.push(c.id)))!;
      expect(cert).toEqual({
        id: expect.stringMatching(/^crt_/), projectId: p, subject: "www.example.test", sans: ["www.example.test", "example.test"], issuer: "local", status: "pending",
        reason: null, autoRenew: false, ownCsr: "-----CSR-----", keySealed: null, fullchain: null, notBefore: null, notAfter: null, renewalError: null, createdAt: expect.any(String),
      });
      expect(seen).toEqual([cert.id]);
      expect(await s.get(p, cert.id)).toEqual(cert);
      expect(await s.getById(cert.id)).toEqual(cert);
      expect(await s.get(await newProject(store.main), cert.id)).toBeUndefined();
      await expect(s.createPending(order(p), 10, () => { throw new Error("enqueue failed"); })).rejects.toThrow("enqueue failed");
      expect(await s.createPending(order(p), 2)).toBeDefined();
      expect(await s.createPending(order(p), 2)).toBeUndefined();
    });

    it("orders racing on two connections stop at the cap", async () => {
      const p = await newProject(store.main);
      const other = make(await store.connect());
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? other : s).createPending(order(p), 4)));
      expect(results.filter(Boolean)).toHaveLength(4);
    });

    it("moves pending to active or failed once; renewals replace only an active one", async () => {
      const p = await newProject(store.main);
      const a = (await s.createPending(order(p), 10))!;
      await s.markActive(a.id, issued(1));
      expect(await s.getById(a.id)).toMatchObject({ status: "active", reason: null, fullchain: "-----CHAIN 1-----", keySealed: "key1", notBefore: 1_000, notAfter: issued(1).notAfter });
      await s.markFailed(a.id, "too late");
      await s.markActive(a.id, issued(9));
      expect(await s.getById(a.id)).toMatchObject({ status: "active", fullchain: "-----CHAIN 1-----" });
      await s.recordRenewalFailure(a.id, "CA down");
      expect(await s.getById(a.id)).toMatchObject({ renewalError: "CA down", fullchain: "-----CHAIN 1-----" });
      await s.replace(a.id, issued(2));
      expect(await s.getById(a.id)).toMatchObject({ status: "active", fullchain: "-----CHAIN 2-----", keySealed: "key2", renewalError: null });
      const f = (await s.createPending(order(p), 10))!;
      await s.markFailed(f.id, "DNS-01 failed");
      await s.replace(f.id, issued(3));
      expect(await s.getById(f.id)).toMatchObject({ status: "failed", reason: "DNS-01 failed", fullchain: null });
    });

    it("keeps the first local CA saved, and ACME accounts by directory", async () => {
      const first = await s.saveLocalCa("-----CA 1-----", "sealed1");
      expect(first).toEqual({ certPem: "-----CA 1-----", keySealed: "sealed1" });
      expect(await make(await store.connect()).saveLocalCa("-----CA 2-----", "sealed2")).toEqual(first);
      expect(await s.getLocalCa()).toEqual(first);
      const dir = `https://acme.example.test/${backend}/directory`;
      expect(await s.getAcmeAccount(dir)).toBeUndefined();
      await s.saveAcmeAccount(dir, "k1", null);
      expect(await s.getAcmeAccount(dir)).toEqual({ keySealed: "k1", accountUrl: null });
      await s.saveAcmeAccount(dir, "k1", "https://acme.example.test/acct/1");
      expect(await s.getAcmeAccount(dir)).toEqual({ keySealed: "k1", accountUrl: "https://acme.example.test/acct/1" });
    });

    it("tracks the challenge records an order published, once each", async () => {
      await s.trackChallengeRecord("crt_x", "example.test", "rec_1");
      await s.trackChallengeRecord("crt_x", "example.test", "rec_1");
      await s.trackChallengeRecord("crt_x", "other.test", "rec_2");
      expect((await s.challengeRecords("crt_x")).sort((a, b) => a.recordId.localeCompare(b.recordId))).toEqual([{ zone: "example.test", recordId: "rec_1" }, { zone: "other.test", recordId: "rec_2" }]);
      await s.untrackChallengeRecord("example.test", "rec_1");
      expect(await s.challengeRecords("crt_x")).toEqual([{ zone: "other.test", recordId: "rec_2" }]);
      expect(await s.challengeRecords("crt_none")).toEqual([]);
    });
  });
}
