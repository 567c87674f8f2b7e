// The `acme` issuer against a real ACME server: Pebble on loopback, validating DNS-01 by asking
// our own authoritative DNS server. Single name, wildcard plus apex, own CSR; chains verified with
// node:crypto against Pebble's root; renewal under a manual clock; a challenge that cannot
// validate; a renewal that fails keeps the old certificate served.
import { X509Certificate } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../test/free-port.ts";
import { defaults } from "../config.ts";
import { manualClock } from "../jobs/clock.ts";
import { chainVerifies, opensslCsr, samePublicKey, sanNames, splitChain } from "../test/certificate-tools.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { pebbleTls, startPebble, type Pebble } from "../test/pebble.ts";

const DAY = 86_400_000;
const clock = manualClock(Date.now());
const tls = pebbleTls();
let pebble: Pebble;
let p: TestPlatform;
let t: Tenant;
let root: X509Certificate;

beforeAll(async () => {
  // Pebble is told our DNS port at its start, and the platform Pebble's directory at its own.
  const dnsPort = await freePort();
  pebble = await startPebble(tls, dnsPort);
  p = await startTestPlatform(
    {
      dns: { enabled: true, host: "127.0.0.1", port: dnsPort },
      certificates: { issuer: "acme", acme: { ...defaults.certificates.acme, directoryUrl: pebble.directoryUrl, caFile: pebble.tlsCaFile, pollMinMs: 50 } },
    },
    { clock, runWorker: false },
  );
  root = new X509Certificate(await pebble.root());
  t = await p.newTenant("acme");
});
afterAll(async () => {
  await pebble?.stop();
  await p?.stop();
  rmSync(tls.dir, { recursive: true, force: true });
});

async function order(body: object) {
  const res = await t.api("POST", "/v1/certs/issue", body);
  expect(res.status).toBe(200);
  expect(res.body.status).toBe("pending");
  await p.worker.drain();
  return res.body.id as string;
}

const challengeRecords = async (zone: string) =>
  ((await t.api("GET", `/v1/dns/${zone}/records`)).body.records as { name: string; type: string }[]).filter((r) => r.name.startsWith("_acme-challenge"));

describe("issuance through Pebble", () => {
  it("issues a single name; the chain verifies against Pebble's root; challenge records are removed", async () => {
    const id = await order({ domains: ["www.acme.test"] });
    const status = (await t.api("GET", `/v1/certs/${id}/status`)).body;
    expect(status).toMatchObject({ status: "active", daysLeft: expect.any(Number) });
    const files = (await t.api("GET", `/v1/certs/${id}/download`)).body;
    const leaf = splitChain(files.fullchain)[0];
    expect(chainVerifies(files.fullchain, root)).toBe(true);
    expect(sanNames(leaf)).toEqual(["www.acme.test"]);
    expect(samePublicKey(files.privkey, leaf)).toBe(true);
    expect(status.notAfter).toBe(new Date(leaf.validTo).toISOString());
    expect(await challengeRecords("acme.test")).toEqual([]);
    expect(p.db.prepare("SELECT COUNT(*) AS n FROM acme_challenge_records").get()).toEqual({ n: 0 });
  });

  it("issues a wildcard with its apex (two DNS-01 answers at one name)", async () => {
    const id = await order({ domains: ["acme.test", "*.acme.test"] });
    const files = (await t.api("GET", `/v1/certs/${id}/download`)).body;
    expect(chainVerifies(files.fullchain, root)).toBe(true);
    expect(sanNames(splitChain(files.fullchain)[0])).toEqual(["*.acme.test", "acme.test"]);
    expect(await challengeRecords("acme.test")).toEqual([]);
  });

  it("issues from an own CSR made by openssl; privkey is null", async () => {
    const { csr, key } = opensslCsr(["api.acme.test"]);
    const id = await order({ domains: ["api.acme.test"], csr });
    const files = (await t.api("GET", `/v1/certs/${id}/download`)).body;
    expect(files.privkey).toBeNull();
    expect(chainVerifies(files.fullchain, root)).toBe(true);
    expect(samePublicKey(key, splitChain(files.fullchain)[0])).toBe(true);
  });

  it("a zone whose challenge cannot validate ends failed with the CA's reason", async () => {
    // _acme-challenge delegated away: our server answers with a referral, never the TXT record.
    const f = await p.newTenant("acmefail");
    expect((await f.api("POST", "/v1/dns/acmefail.test/records", { type: "NS", name: "_acme-challenge", data: "ns1.elsewhere.invalid" })).status).toBe(200);
    const res = await f.api("POST", "/v1/certs/issue", { domains: ["acmefail.test"] });
    await p.worker.drain();
    const status = (await f.api("GET", `/v1/certs/${res.body.id}/status`)).body;
    expect(status).toMatchObject({ status: "failed", notAfter: null, daysLeft: null, reason: expect.stringMatching(/^the CA refused the order: .+/) });
    expect((await f.api("GET", `/v1/certs/${res.body.id}/download`)).status).toBe(409);
    const left = ((await f.api("GET", "/v1/dns/acmefail.test/records")).body.records as { type: string }[]).filter((r) => r.type === "TXT" && JSON.stringify(r).includes("_acme-challenge"));
    expect(left).toEqual([]);
  });
});

describe("renewal through Pebble", () => {
  let id: string;
  let first: { fullchain: string; privkey: string };

  it("renews with the same names once 30 days remain; the new chain verifies", async () => {
    id = await order({ domains: ["renew.acme.test", "*.renew.acme.test"] });
    first = (await t.api("GET", `/v1/certs/${id}/download`)).body;
    clock.advance(61 * DAY);
    await p.worker.drain();
    const renewed = (await t.api("GET", `/v1/certs/${id}/download`)).body;
    const [a, b] = [splitChain(first.fullchain)[0], splitChain(renewed.fullchain)[0]];
    expect(b.serialNumber).not.toBe(a.serialNumber);
    expect(sanNames(b)).toEqual(sanNames(a));
    expect(chainVerifies(renewed.fullchain, root)).toBe(true);
    expect(samePublicKey(renewed.privkey, b)).toBe(true);
    first = renewed;
  });

  it("a failed renewal keeps the old certificate served and retries later", async () => {
    await pebble.stop();
    clock.advance(61 * DAY);
    await p.worker.drain();
    expect((await t.api("GET", `/v1/certs/${id}/download`)).body).toEqual(first);
    expect((await t.api("GET", `/v1/certs/${id}/status`)).body.status).toBe("active");
    const row = p.db.prepare("SELECT renewal_error FROM certificates WHERE id = ?").get(id) as { renewal_error: string };
    expect(row.renewal_error).toMatch(/could not be reached/);
    const job = p.db.prepare("SELECT run_at, attempts FROM jobs WHERE kind = 'cert.renew' AND json_extract(payload, '$.certificateId') = ?").get(id) as { run_at: number; attempts: number };
    expect(job).toEqual({ run_at: clock.now() + 3_600_000, attempts: 1 });
  });
});
