// The storage boundary of mail domains: the domain, its DKIM key pair and verification token.

export interface MailDomainRecord {
  id: string;
  projectId: string;
  name: string;
  dkimSelector: string;
  dkimPrivateKey: string;
  /** Base64 DER (SPKI) of the public key, as it goes into the DKIM TXT record. */
  dkimPublicKey: string;
  verificationToken: string;
  createdAt: string;
}

export type NewMailDomain = Omit<MailDomainRecord, "id" | "createdAt">;

export interface MailDomainRepository {
  /**
   * Undefined when the name is already connected (by any project). With `cap`, throws
   * CapReachedError when the project already has that many, checked in the insert's transaction.
   */
  create(d: NewMailDomain, cap?: number): Promise<MailDomainRecord | undefined>;
  list(projectId: string): Promise<MailDomainRecord[]>;
  getByName(projectId: string, name: string): Promise<MailDomainRecord | undefined>;
}
