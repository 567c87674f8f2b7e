// DNS-01 through our own authoritative server: the `_acme-challenge` TXT record goes into the
// hosted zone through the DNS area's repository (the wire server answers it at once) and is
// removed after validation. Each record is tracked with its order, so a run cut short by a crash
// removes its leftovers when the job runs again.
import type { Dns01Responder } from "../adapters/acme-client.ts";
import { relativeName } from "../dns/names.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import type { CertificateRepository } from "./certificate-repository.ts";

export interface ChallengeRecord {
  zone: string;
  recordId: string;
}

// Short, so a resolver that caches a failed lookup asks again soon.
const CHALLENGE_TTL = 60;

export function dnsChallengeResponder(zones: DnsRecordRepository, certs: CertificateRepository, certificateId: string): Dns01Responder<ChallengeRecord> {
  return {
    async publish(challengeName, value) {
      const name = challengeName.toLowerCase();
      const zone = await zones.findZoneForName(name);
      if (!zone) throw new Error(`no zone hosted here holds ${name}`);
      const record = await zones.insertRecord(zone.name, { type: "TXT", name: relativeName(name, zone.name)!, data: value, priority: null, ttl: CHALLENGE_TTL });
      await certs.trackChallengeRecord(certificateId, zone.name, record.id);
      return { zone: zone.name, recordId: record.id };
    },
    async remove({ zone, recordId }) {
      await zones.deleteRecord(zone, recordId);
      await certs.untrackChallengeRecord(zone, recordId);
    },
  };
}

/** Removes challenge records an earlier, interrupted run of this order left behind. */
export async function removeLeftoverChallenges(zones: DnsRecordRepository, certs: CertificateRepository, certificateId: string): Promise<void> {
  for (const { zone, recordId } of await certs.challengeRecords(certificateId)) {
    await zones.deleteRecord(zone, recordId);
    await certs.untrackChallengeRecord(zone, recordId);
  }
}
