// DNS zones and records, and the wire server's prepared zones: the shared suite on both stores.
import { backends } from "../test/backends.ts";
import { describeZoneRepository } from "./zone-repository.contract.ts";
import { ZONES_CHANNEL, zoneRepository } from "./zone-repository.ts";

for (const backend of backends) describeZoneRepository(backend, { make: (c) => zoneRepository(c.store), channel: ZONES_CHANNEL });
