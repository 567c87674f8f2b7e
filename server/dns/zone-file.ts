// A hosted zone written out as an RFC 1035 master file, so other authoritative servers
// (NSD, PowerDNS in `npm run bench:dns`) can serve exactly the records the platform serves.
// The SOA and default NS are synthesized with the same values as the wire server (answer.ts),
// so every server answers the same questions with the same data.
import type { DnsRecord, DnsZone } from "./zone-repository.ts";
import { splitTxt } from "./record-data.ts";
import { APEX } from "./names.ts";

const absolute = (name: string, zone: string) => (name === APEX ? `${zone}.` : `${name}.${zone}.`);
const fqdn = (host: string) => (host.endsWith(".") ? host : `${host}.`);

/** One TXT character-string in master-file quoting: `"` and `\` escaped, bytes outside printable ASCII as \DDD. */
function quoteTxtChunk(chunk: Buffer): string {
  let out = '"';
  for (const byte of chunk) {
    if (byte === 0x22 || byte === 0x5c) out += "\\" + String.fromCharCode(byte);
    else if (byte < 0x20 || byte > 0x7e) out += "\\" + String(byte).padStart(3, "0");
    else out += String.fromCharCode(byte);
  }
  return out + '"';
}

function rdata(record: DnsRecord): string {
  switch (record.type) {
    case "TXT":
      return splitTxt(record.data).map(quoteTxtChunk).join(" ");
    case "MX":
      return `${record.priority ?? 0} ${fqdn(record.data)}`;
    case "CNAME":
    case "NS":
      return fqdn(record.data);
    case "SRV": {
      const [priority, weight, port, target] = record.data.split(" ");
      return `${priority} ${weight} ${port} ${fqdn(target)}`;
    }
    default:
      // A, AAAA and CAA are stored in their master-file form already (`0 issue "ca.test"`).
      return record.data;
  }
}

/** The zone as master-file text: SOA, NS (the stored ones or the defaults), then every record. */
export function zoneFile(zone: DnsZone, records: DnsRecord[], { nameservers = [`ns1.${zone.name}`, `ns2.${zone.name}`], hostmaster = `hostmaster.${zone.name}` } = {}): string {
  const apex = `${zone.name}.`;
  const lines = [`$ORIGIN ${apex}`, `${apex} 3600 IN SOA ${fqdn(nameservers[0])} ${fqdn(hostmaster)} ${zone.serial} 3600 600 604800 300`];
  if (!records.some((record) => record.name === APEX && record.type === "NS")) {
    for (const ns of nameservers) lines.push(`${apex} 3600 IN NS ${fqdn(ns)}`);
  }
  for (const record of records) lines.push(`${absolute(record.name, zone.name)} ${record.ttl} IN ${record.type} ${rdata(record)}`);
  return lines.join("\n") + "\n";
}
