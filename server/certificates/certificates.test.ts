// The certificate API on the `local` issuer (the default, no ACME server needed): orders through
// HTTP, issuance on the job queue under a manual clock, the chain checked with node:crypto,
// renewal, restart, and every kind of bad input answered 400 with nothing stored.
import { createPrivateKey } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { chainVerifies, opensslCsr, samePublicKey, sanNames, splitChain } from "../test/certificate-tools.ts";
import { apiFor, startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";

const DAY = 86_400_000;
const clock = manualClock(Date.UTC(2026, 5, 1));
let p: TestPlatform;
let t: Tenant;
let other: Tenant;
beforeAll(async () => {
  p = await startTestPlatform({}, { clock, runWorker: false });
  t = await p.newTenant("certs");
  other = await p.newTenant("othercerts");
});
afterAll(() => p.stop());

async function issueAndDrain(body: object) {
  const res = await t.api("POST", "/v1/certs/issue", body);
  expect(res.status).toBe(200);
  await p.worker.drain();
  return res.body as { id: string; subject: string; sans: string[]; status: string };
}

describe("ordering from the local CA", () => {
  it("answers pending at once, 409 not_ready until the job ran, then active with a verifiable chain and its key", async () => {
    const res = await t.api("POST", "/v1/certs/issue", { domains: ["www.certs.test"] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^crt_/), subject: "www.certs.test", sans: ["www.certs.test"], status: "pending" });
    const id = res.body.id;
    expect((await t.api("GET", `/v1/certs/${id}/status`)).body).toEqual({ status: "pending", notAfter: null, daysLeft: null });
    const early = await t.api("GET", `/v1/certs/${id}/download`);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: "not_ready", error: expect.stringContaining("pending") });

    expect(await p.worker.drain()).toBe(1);
    const status = await t.api("GET", `/v1/certs/${id}/status`);
    expect(status.body).toEqual({ status: "active", notAfter: new Date(clock.now() + 90 * DAY).toISOString(), daysLeft: 90 });

    const files = (await t.api("GET", `/v1/certs/${id}/download`)).body;
    const [leaf, ca] = splitChain(files.fullchain);
    expect(chainVerifies(files.fullchain)).toBe(true);
    expect(ca.ca).toBe(true);
    expect(leaf.subject).toBe("CN=www.certs.test");
    expect(sanNames(leaf)).toEqual(["www.certs.test"]);
    expect(leaf.checkHost("www.certs.test")).toBe("www.certs.test");
    expect(samePublicKey(files.privkey, leaf)).toBe(true);
    expect(createPrivateKey(files.privkey).asymmetricKeyDetails).toEqual({ namedCurve: "prime256v1" });
    // Sealed at rest: the stored column is not the PEM.
    const row = p.db.prepare("SELECT key_sealed FROM certificates WHERE id = ?").get(id) as { key_sealed: string };
    expect(row.key_sealed).not.toContain("PRIVATE KEY");
    expect(p.services.secrets.open(row.key_sealed)).toBe(files.privkey);
  });

  it("covers a wildcard with its apex; the subject is the first name", async () => {
    const order = await issueAndDrain({ domains: ["certs.test", "*.certs.test"] });
    expect(order).toMatchObject({ subject: "certs.test", sans: ["certs.test", "*.certs.test"] });
    const leaf = splitChain((await t.api("GET", `/v1/certs/${order.id}/download`)).body.fullchain)[0];
    expect(sanNames(leaf)).toEqual(["*.certs.test", "certs.test"]);
    expect(leaf.checkHost("anything.certs.test")).toBe("*.certs.test");
    expect(leaf.checkHost("certs.test")).toBe("certs.test");
  });

  it("accepts names in any case and issues them in lower case (DNS names are case-insensitive)", async () => {
    const order = await issueAndDrain({ domains: ["API.Certs.TEST", "*.CERTS.test"] });
    expect(order).toMatchObject({ subject: "api.certs.test", sans: ["api.certs.test", "*.certs.test"] });
    const leaf = splitChain((await t.api("GET", `/v1/certs/${order.id}/download`)).body.fullchain)[0];
    expect(sanNames(leaf)).toEqual(["*.certs.test", "api.certs.test"]);
  });

  it("signs an own CSR made by openssl and returns privkey null", async () => {
    const { csr, key } = opensslCsr(["api.certs.test", "mail.certs.test"]);
    const order = await issueAndDrain({ domains: ["api.certs.test", "mail.certs.test"], csr });
    const files = (await t.api("GET", `/v1/certs/${order.id}/download`)).body;
    expect(files.privkey).toBeNull();
    const leaf = splitChain(files.fullchain)[0];
    expect(samePublicKey(key, leaf)).toBe(true);
    expect(sanNames(leaf)).toEqual(["api.certs.test", "mail.certs.test"]);
    expect((p.db.prepare("SELECT key_sealed FROM certificates WHERE id = ?").get(order.id) as { key_sealed: null }).key_sealed).toBeNull();
  });

  it("accepts an RSA-2048 CSR", async () => {
    const { csr } = opensslCsr(["rsa.certs.test"], "rsa:2048", []);
    const order = await issueAndDrain({ domains: ["rsa.certs.test"], csr });
    expect((await t.api("GET", `/v1/certs/${order.id}/status`)).body.status).toBe("active");
  });

  it("hides another project's certificate like a missing one", async () => {
    const order = await issueAndDrain({ domains: ["hidden.certs.test"] });
    for (const path of [`/v1/certs/${order.id}/status`, `/v1/certs/${order.id}/download`, "/v1/certs/crt_nosuchthing/status"]) {
      const res = await other.api("GET", path);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
  });
});

describe("renewal", () => {
  it("renews when 30 days remain, swapping chain and key, and schedules the next one", async () => {
    const order = await issueAndDrain({ domains: ["renew.certs.test"] });
    const before = (await t.api("GET", `/v1/certs/${order.id}/download`)).body;
    clock.advance(59 * DAY);
    await p.worker.drain();
    expect((await t.api("GET", `/v1/certs/${order.id}/download`)).body).toEqual(before);

    clock.advance(2 * DAY);
    await p.worker.drain();
    const after = (await t.api("GET", `/v1/certs/${order.id}/download`)).body;
    const [oldLeaf, newLeaf] = [splitChain(before.fullchain)[0], splitChain(after.fullchain)[0]];
    expect(newLeaf.serialNumber).not.toBe(oldLeaf.serialNumber);
    expect(sanNames(newLeaf)).toEqual(["renew.certs.test"]);
    expect(samePublicKey(after.privkey, newLeaf)).toBe(true);
    expect(after.privkey).not.toBe(before.privkey);
    const status = (await t.api("GET", `/v1/certs/${order.id}/status`)).body;
    expect(status).toMatchObject({ status: "active", daysLeft: 90 });
    const next = p.db.prepare("SELECT run_at FROM jobs WHERE kind = 'cert.renew' AND json_extract(payload, '$.certificateId') = ?").get(order.id) as { run_at: number };
    expect(next.run_at).toBe(Date.parse(newLeaf.validTo) - 30 * DAY);
  });

  it("does not renew with autoRenew false", async () => {
    const order = await issueAndDrain({ domains: ["manual.certs.test"], autoRenew: false });
    expect(p.db.prepare("SELECT COUNT(*) AS n FROM jobs WHERE json_extract(payload, '$.certificateId') = ?").get(order.id)).toEqual({ n: 0 });
  });
});

describe("bad input: 400 naming the field, nothing stored", () => {
  const { csr: goodCsr } = opensslCsr(["csr.certs.test"]);
  const tampered = (() => {
    const lines = goodCsr.trim().split("\n");
    const body = Buffer.from(lines.slice(1, -1).join(""), "base64");
    body[body.length - 3] ^= 0x01; // inside the signature
    return `${lines[0]}\n${body.toString("base64").replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n${lines.at(-1)}\n`;
  })();
  const cases: [string, object, string][] = [
    ["a name in no zone hosted here", { domains: ["www.nowhere.test"] }, "body.domains.0"],
    ["a name in another project's zone", { domains: ["certs.test", "www.othercerts.test"] }, "body.domains.1"],
    ["a malformed name", { domains: ["-bad.certs.test"] }, "body.domains.0"],
    ["a wildcard not in the leftmost label", { domains: ["www.*.certs.test"] }, "body.domains.0"],
    ["a name repeated", { domains: ["a.certs.test", "a.certs.test"] }, "body.domains.1"],
    ["more than 100 names", { domains: Array.from({ length: 101 }, (_, i) => `n${i}.certs.test`) }, "body.domains"],
    ["no names", { domains: [] }, "body.domains"],
    ["a CSR that is not PEM", { domains: ["csr.certs.test"], csr: "-----BEGIN CERTIFICATE REQUEST-----\nnot base64 at all!\n-----END CERTIFICATE REQUEST-----\n" }, "body.csr"],
    ["a CSR that is not a PEM request at all", { domains: ["csr.certs.test"], csr: "hello" }, "body.csr"],
    ["a CSR for other names", { domains: ["other.certs.test"], csr: goodCsr }, "body.csr"],
    ["a CSR for fewer names than ordered", { domains: ["csr.certs.test", "more.certs.test"], csr: goodCsr }, "body.csr"],
    ["a CSR signed wrong", { domains: ["csr.certs.test"], csr: tampered }, "body.csr"],
    ["a CSR with an RSA-1024 key", { domains: ["csr.certs.test"], csr: opensslCsr(["csr.certs.test"], "rsa:1024", []).csr }, "body.csr"],
    ["a CSR on an unaccepted curve", { domains: ["csr.certs.test"], csr: opensslCsr(["csr.certs.test"], "ec", ["-pkeyopt", "ec_paramgen_curve:secp256k1"]).csr }, "body.csr"],
  ];
  it.each(cases)("%s", async (_name, body, path) => {
    const count = () => p.db.prepare("SELECT (SELECT COUNT(*) FROM certificates) AS certs, (SELECT COUNT(*) FROM jobs WHERE kind = 'cert.issue') AS jobs").get();
    const before = count();
    const res = await t.api("POST", "/v1/certs/issue", body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_request");
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(count()).toEqual(before);
  });

  it("the good CSR of those cases is accepted, so each refusal was about its one defect", async () => {
    expect((await t.api("POST", "/v1/certs/issue", { domains: ["csr.certs.test"], csr: goodCsr })).status).toBe(200);
  });
});

describe("durability", () => {
  it("a pending order is issued by the next start, by the same local CA", async () => {
    const first = await startTestPlatform({}, { clock, runWorker: false });
    const a = await first.newTenant("restart");
    const done = await a.api("POST", "/v1/certs/issue", { domains: ["one.restart.test"] });
    await first.worker.drain();
    const pending = await a.api("POST", "/v1/certs/issue", { domains: ["two.restart.test"] });
    const caBefore = splitChain((await a.api("GET", `/v1/certs/${done.body.id}/download`)).body.fullchain)[1];
    await first.close();

    const second = await startTestPlatform({ dataDir: first.dataDir }, { clock, runWorker: false });
    try {
      const api = apiFor(second.url, a.key);
      expect((await api("GET", `/v1/certs/${pending.body.id}/status`)).body.status).toBe("pending");
      await second.worker.drain();
      const files = (await api("GET", `/v1/certs/${pending.body.id}/download`)).body;
      const ca = splitChain(files.fullchain)[1];
      expect(ca.fingerprint256).toBe(caBefore.fingerprint256);
      expect(chainVerifies(files.fullchain, caBefore)).toBe(true);
    } finally {
      await second.stop();
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});

describe("limits", () => {
  it("the per-project cap is 409 limit_reached", async () => {
    const capped = await startTestPlatform({ limits: { ...p.services.config.limits, certificates: 1 } }, { clock, runWorker: false });
    try {
      const c = await capped.newTenant("capped");
      expect((await c.api("POST", "/v1/certs/issue", { domains: ["a.capped.test"] })).status).toBe(200);
      const res = await c.api("POST", "/v1/certs/issue", { domains: ["b.capped.test"] });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("limit_reached");
    } finally {
      await capped.stop();
    }
  });
});
