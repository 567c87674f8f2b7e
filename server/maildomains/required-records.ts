// The DNS records a mail domain needs: where mail goes (MX), who may send for it (SPF), the
// DKIM public key, the DMARC policy and our ownership check (verification TXT).
import type { MailDomainRecord } from "./maildomain-repository.ts";

export type RecordPurpose = "mx" | "spf" | "dkim" | "dmarc" | "verification";

export interface RequiredRecord {
  purpose: RecordPurpose;
  type: "MX" | "TXT";
  /** Fully qualified. */
  name: string;
  data: string;
  priority?: number;
  ttl: number;
}

export const VERIFICATION_PREFIX = "platform-verification=";
const TTL = 3600;

export function requiredRecords(domain: MailDomainRecord, mailHost: string): RequiredRecord[] {
  const at = (relative: string) => (relative === "@" ? domain.name : `${relative}.${domain.name}`);
  const rec = (purpose: RecordPurpose, type: "MX" | "TXT", relative: string, data: string, priority?: number): RequiredRecord => ({
    purpose, type, name: at(relative), data, ...(priority !== undefined ? { priority } : {}), ttl: TTL,
  });
  return [
    rec("mx", "MX", "@", mailHost, 10),
    rec("spf", "TXT", "@", `v=spf1 a:${mailHost} -all`),
    rec("dkim", "TXT", `${domain.dkimSelector}._domainkey`, `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`),
    rec("dmarc", "TXT", "_dmarc", `v=DMARC1; p=quarantine; rua=mailto:dmarc@${domain.name}`),
    rec("verification", "TXT", "@", `${VERIFICATION_PREFIX}${domain.verificationToken}`),
  ];
}
