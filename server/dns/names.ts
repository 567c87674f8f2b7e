// Domain-name helpers shared by validation, storage and the wire server.
// Stored names are lowercase and relative to their zone ("@" for the apex), so every
// lookup compares plain strings; the wire server does the case folding once per query.

export const APEX = "@";
export const MAX_NAME_LENGTH = 253;

// Record names may carry underscores (_dmarc, _sip._tcp, _acme-challenge): the seed's own
// mail-domain records need them, so the label alphabet is wider than a host name's.
const RECORD_LABEL = /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
// Targets of MX, NS and SRV must be host names (RFC 1123 letters, digits, hyphens).
const HOST_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
const IPV4_LIKE = /^\d+(\.\d+){3}$/;

/** Lowercase, without a trailing dot: the canonical spelling of an absolute name. */
export function canonicalName(name: string): string {
  return name.replace(/\.$/, "").toLowerCase();
}

/** The absolute name of a zone-relative name. */
export function absoluteName(relative: string, zone: string): string {
  return relative === APEX ? zone : `${relative}.${zone}`;
}

/**
 * The zone-relative name of an absolute name, or undefined when it lies outside the zone.
 * Both arguments are canonical.
 */
export function relativeName(absolute: string, zone: string): string | undefined {
  if (absolute === zone) return APEX;
  if (absolute.endsWith(`.${zone}`)) return absolute.slice(0, -(zone.length + 1));
  return undefined;
}

export function isRecordLabel(label: string): boolean {
  return RECORD_LABEL.test(label);
}

/** Problems with a host name given in record data (MX exchange, NS, SRV target), or none. */
export function hostNameProblem(value: string, { allowUnderscore = false } = {}): string | undefined {
  const name = value.replace(/\.$/, "");
  if (name.length === 0) return "must be a host name";
  // Counted with the final dot, as the contract's maxLength counts the string it is given.
  if (value.length > MAX_NAME_LENGTH) return `must be at most ${MAX_NAME_LENGTH} characters`;
  // A bare address in MX or NS data is a classic mistake that resolvers refuse to follow.
  if (IPV4_LIKE.test(name) || name.includes(":")) return "must be a host name, not an IP address";
  for (const label of name.split(".")) {
    const ok = (allowUnderscore ? RECORD_LABEL : HOST_LABEL).test(label);
    if (!ok) return `label "${label}" is not a valid host name label`;
  }
  return undefined;
}

/** Every ancestor of a relative name up to, not including, the apex: "a.b.c" gives ["b.c", "c"]. */
export function ancestors(relative: string): string[] {
  if (relative === APEX) return [];
  const labels = relative.split(".");
  const result: string[] = [];
  for (let i = 1; i < labels.length; i++) result.push(labels.slice(i).join("."));
  return result;
}
