// External Account Binding (RFC 8555 7.3.4), which commercial ACME CAs require: Pebble started
// with EAB required and one key id. A platform configured with that id and HMAC key
// (ACME_EAB_KID, ACME_EAB_HMAC_KEY) registers and issues; one with a wrong key, or none, ends the
// order `failed` with the CA's reason, and nothing is issued.
import { randomBytes, X509Certificate } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../test/free-port.ts";
import { defaults } from "../config.ts";
import { chainVerifies, sanNames, splitChain } from "../test/certificate-tools.ts";
import { startTestPlatform, type TestPlatform } from "../test/harness.ts";
import { pebbleTls, startPebble, type Pebble } from "../test/pebble.ts";

const KID = "kid-platform";
const HMAC = randomBytes(48).toString("base64url");
const tls = pebbleTls();
let pebble: Pebble;
const platforms: TestPlatform[] = [];
let dnsPort: number;

beforeAll(async () => {
  dnsPort = await freePort();
  pebble = await startPebble(tls, dnsPort, { eab: { [KID]: HMAC } });
});
afterAll(async () => {
  for (const p of platforms) await p.stop();
  await pebble?.stop();
  rmSync(tls.dir, { recursive: true, force: true });
});

/** A platform (its own DNS server on the port Pebble asks) with the given EAB settings. */
async function platformWith(eab: { eabKid: string; eabHmacKey: string }): Promise<TestPlatform> {
  for (const p of platforms.splice(0)) await p.stop();
  const p = await startTestPlatform(
    {
      dns: { enabled: true, host: "127.0.0.1", port: dnsPort },
      certificates: { issuer: "acme", acme: { ...defaults.certificates.acme, directoryUrl: pebble.directoryUrl, caFile: pebble.tlsCaFile, pollMinMs: 50, ...eab } },
    },
    { runWorker: false },
  );
  platforms.push(p);
  return p;
}

async function issue(p: TestPlatform, name: string) {
  const t = await p.newTenant(name);
  const res = await t.api("POST", "/v1/certs/issue", { domains: [`www.${name}.test`] });
  expect(res.status).toBe(200);
  await p.worker.drain();
  return { status: (await t.api("GET", `/v1/certs/${res.body.id}/status`)).body, download: await t.api("GET", `/v1/certs/${res.body.id}/download`) };
}

describe("ACME with External Account Binding (Pebble requires it)", () => {
  it("the right key id and HMAC key: the account binds and the certificate is issued", async () => {
    const p = await platformWith({ eabKid: KID, eabHmacKey: HMAC });
    const { status, download } = await issue(p, "eabok");
    expect(status).toMatchObject({ status: "active" });
    const root = new X509Certificate(await pebble.root());
    expect(chainVerifies(download.body.fullchain, root)).toBe(true);
    expect(sanNames(splitChain(download.body.fullchain)[0])).toEqual(["www.eabok.test"]);
  });

  it("a wrong HMAC key: failed with the CA's reason, nothing to download", async () => {
    const p = await platformWith({ eabKid: KID, eabHmacKey: randomBytes(48).toString("base64url") });
    const { status, download } = await issue(p, "eabbad");
    expect(status).toMatchObject({ status: "failed", reason: expect.stringMatching(/^the CA refused the order: external account binding JWS verification error/) });
    expect(download.status).toBe(409);
  });

  it("no EAB configured: failed, the CA saying it requires an external account", async () => {
    const p = await platformWith({ eabKid: "", eabHmacKey: "" });
    const { status, download } = await issue(p, "eabnone");
    expect(status).toMatchObject({ status: "failed", reason: expect.stringMatching(/^the CA refused the order: .*externalAccountBinding/) });
    expect(download.status).toBe(409);
  });
});
