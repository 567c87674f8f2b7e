// A recipient domain hosted on our own DNS server: MX 10 mx.<zone> and mx.<zone> A 127.0.0.1 (or
// another loopback address), so the relay finds the test sink through real DNS lookups.
import type { Services } from "../services.ts";

export async function hostMailZone(s: Services, zone: string, address = "127.0.0.1"): Promise<void> {
  await s.zones.createZone({ name: zone });
  await s.zones.insertRecord(zone, { type: "MX", name: "@", data: `mx.${zone}`, priority: 10, ttl: 300 });
  await s.zones.insertRecord(zone, { type: "A", name: "mx", data: address, priority: null, ttl: 300 });
}
