// The DNS record routes, on the DNS area's validation and repository (server/dns/). A zone not
// bound to the key's project answers 404 like a zone that does not exist.
import type { DNSHandlers } from "../../generated/server/handlers.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import { canonicalName } from "../dns/names.ts";
import { checkNameConflicts, validateRecord } from "../dns/validate-record.ts";
import type { DnsRecordRepository, DnsZone } from "../dns/zone-repository.ts";
import type { Limits } from "../config.ts";
import { conflict, invalid, invalidFields, notFound, withinCap } from "../http/errors.ts";

export function dnsRecordHandlers(deps: { zones: DnsRecordRepository; limits: Limits }): DNSHandlers<AuthContext> {
  async function zoneOf(projectId: string, name: string): Promise<DnsZone> {
    const zone = await deps.zones.getZone(canonicalName(name));
    if (!zone || zone.projectId !== projectId) throw notFound(`zone ${name}`);
    return zone;
  }

  return {
    async listDnsRecords({ params, auth }) {
      const zone = await zoneOf(auth.projectId, params.zone);
      const records = await deps.zones.listZoneRecords(zone.name);
      return {
        zone: zone.name,
        records: records.map((r) => ({
          id: r.id, type: r.type, name: r.name, data: r.data, ...(r.priority !== null ? { priority: r.priority } : {}), ttl: r.ttl,
        })),
      };
    },

    async createDnsRecord({ params, body, auth }) {
      const zone = await zoneOf(auth.projectId, params.zone);
      const checked = validateRecord(body, zone.name);
      if (!checked.ok) throw invalidFields(checked.errors);
      const existing = await deps.zones.findRecords(zone.name, checked.record.name);
      const conflicts = checkNameConflicts(checked.record, existing, zone.name);
      if (conflicts.length) {
        throw conflict(conflicts.map((c) => c.message).join("; "), conflicts);
      }
      const record = await withinCap(deps.zones.insertRecord(zone.name, checked.record, deps.limits.recordsPerZone), "records in this zone");
      return { created: true, id: record.id };
    },

    async deleteDnsRecord({ params, query, auth }) {
      const zone = await zoneOf(auth.projectId, params.zone);
      const record = await deps.zones.getRecord(zone.name, params.id);
      if (!record) throw notFound(`record ${params.id} in zone ${zone.name}`);
      if (zone.registrarRequiresData) {
        // That registrar identifies a record by its value; asking for it keeps our API honest
        // about what a deletion at such a registrar needs.
        if (query.data === undefined) throw invalid("query.data", "is required for this zone: give the record's value");
        // A value that matches nothing identifies no record (docs/decisions.md R5).
        if (query.data !== record.data) throw notFound(`record ${params.id} with that data in zone ${zone.name}`);
      }
      return { deleted: await deps.zones.deleteRecord(zone.name, record.id) };
    },
  };
}
