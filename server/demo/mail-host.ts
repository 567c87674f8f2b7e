// The demo's mail host must resolve (issue 41 item 4, decision S18). Every mail domain's SPF record
// is `v=spf1 a:<mail host> -all` (maildomains/required-records.ts); the default mail host,
// mx.platform.test, is a reserved name that resolves nowhere, so the receiving side's SPF check of
// the demo's own first mail (delivered locally, from this host over no network, decision H1) found
// no address and said `spf=temperror`. The first start therefore hosts a zone of the mail host's
// own name here, bound to no project, with the address mail leaves this host from, so the check
// goes through the platform's own DNS (the resolver the receiving side asks) and passes.
//
// Only a reserved name (RFC 2606 / 6761: .test, .example, .invalid, .localhost) is hosted: a
// real mail host's name belongs to DNS elsewhere, and a zone here would hide it from our resolver.
import { validateRecord } from "../dns/validate-record.ts";
import { canonicalName } from "../dns/names.ts";
import type { DnsRecordRepository } from "../dns/zone-repository.ts";
import { LOCAL_HOP_ADDRESS } from "../mail-sending/local-transport.ts";

const RESERVED_TLDS = new Set(["test", "example", "invalid", "localhost"]);

export const isReservedName = (name: string): boolean => RESERVED_TLDS.has(canonicalName(name).split(".").at(-1)!);

/**
 * Hosts `mailHost` as a zone of its own with an A record of the local hop's address, unless it is
 * not a reserved name or a hosted zone already holds it. Answers whether it created the zone.
 */
export async function hostMailHost(zones: DnsRecordRepository, mailHost: string): Promise<boolean> {
  if (!isReservedName(mailHost) || (await zones.findZoneForName(canonicalName(mailHost)))) return false;
  const zone = await zones.createZone({ name: mailHost, projectId: null });
  const checked = validateRecord({ type: "A", name: "@", data: LOCAL_HOP_ADDRESS }, zone.name);
  if (!checked.ok) throw new Error(`the mail host's address record is invalid: ${JSON.stringify(checked.errors)}`);
  await zones.insertRecord(zone.name, checked.record);
  return true;
}
