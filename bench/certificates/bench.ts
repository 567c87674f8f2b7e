// `npm run bench:certs`: time from POST /v1/certs/issue to `active`, for the ACME issuer against
// Pebble on loopback (DNS-01 answered by our own DNS server) and for the local issuer as the
// baseline, in alternating rounds of the same run. Wall-clock time through the real worker.
import { rmSync } from "node:fs";
import { freePort } from "../../conformance/scripts/free-port.ts";
import { defaults } from "../../server/config.ts";
import { startTestPlatform, type Tenant } from "../../server/test/harness.ts";
import { pebbleTls, startPebble } from "../../server/test/pebble.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 10);

async function timeToActive(t: Tenant, domains: string[]): Promise<number> {
  const start = performance.now();
  const res = await t.api("POST", "/v1/certs/issue", { domains });
  if (res.status !== 200) throw new Error(`issue answered ${res.status}`);
  for (;;) {
    const status = (await t.api("GET", `/v1/certs/${res.body.id}/status`)).body.status;
    if (status === "active") return performance.now() - start;
    if (status === "failed") throw new Error(`order failed: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const tls = pebbleTls();
const dnsPort = await freePort();
const pebble = await startPebble(tls, dnsPort);
// pollMinMs as in production's default would measure our polling interval, not the exchange;
// 50 ms shows what the protocol itself costs.
const acmeP = await startTestPlatform({
  dns: { enabled: true, host: "127.0.0.1", port: dnsPort },
  certificates: { issuer: "acme", acme: { ...defaults.certificates.acme, directoryUrl: pebble.directoryUrl, caFile: pebble.tlsCaFile, pollMinMs: 50 } },
});
const localP = await startTestPlatform();
const acme = await acmeP.newTenant("benchacme", { rateLimit: 1_000_000 });
const local = await localP.newTenant("benchlocal", { rateLimit: 1_000_000 });
const times = { acme: [] as number[], local: [] as number[], wildcard: [] as number[] };
for (let i = 0; i < ROUNDS; i++) {
  times.local.push(await timeToActive(local, [`n${i}.benchlocal.test`]));
  times.acme.push(await timeToActive(acme, [`n${i}.benchacme.test`]));
  times.wildcard.push(await timeToActive(acme, [`w${i}.benchacme.test`, `*.w${i}.benchacme.test`]));
}
const [a, w, l] = [median(times.acme), median(times.wildcard), median(times.local)];
console.log(`certificate issuance, POST to active, median of ${ROUNDS} (loopback):`);
console.log(`  local issuer:                 ${l.toFixed(1)} ms`);
console.log(`  ACME via Pebble, one name:    ${a.toFixed(1)} ms (ratio to local ${(a / l).toFixed(1)})`);
console.log(`  ACME via Pebble, wildcard+apex: ${w.toFixed(1)} ms (ratio to local ${(w / l).toFixed(1)})`);
await acmeP.stop();
await localP.stop();
await pebble.stop();
rmSync(tls.dir, { recursive: true, force: true });
