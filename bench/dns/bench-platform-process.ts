// The platform's DNS server as a process of its own for the peer benchmark (peers-bench.ts):
// its CPU is read from /proc/<pid>/stat like NSD's and PowerDNS's, which a worker thread of
// the benchmark's own process would not allow. It builds the bench zone, writes the zone
// file the peers serve from these very records, then prints its UDP port.
// Usage (by peers-bench.ts only): node bench-platform-process.ts <zone-file-path>
import { writeFileSync } from "node:fs";
import { startDnsServer } from "../../server/dns/authoritative-server.ts";
import { EXAMPLE_RECORDS, EXAMPLE_ZONE, createExampleZone } from "../../server/dns/example-zone.ts";
import { zoneFile } from "../../server/dns/zone-file.ts";

/** The example zone plus a two-step CNAME chain (chain -> www -> web). */
export const BENCH_RECORDS = [...EXAMPLE_RECORDS, { type: "CNAME", name: "chain", data: "www.example.test" }];

if (import.meta.main) {
  const { repository } = await createExampleZone(BENCH_RECORDS);
  const zone = (await repository.getZone(EXAMPLE_ZONE))!;
  writeFileSync(process.argv[2], zoneFile(zone, await repository.listZoneRecords(EXAMPLE_ZONE)));
  const server = await startDnsServer({ host: "127.0.0.1", port: Number(process.argv[3] ?? 0), repository });
  // The parent holds our stdin: when it goes away (even killed), so do we.
  process.stdin.on("close", () => process.exit(0)).resume();
  process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
  console.log(JSON.stringify({ port: server.udpPort }));
}
