/** A licensee as the rules read it. */
export interface LicenceRule {
  id: string;
  name: string;
  reference: string | null;
  domain: string;
  includeSubdomains: boolean;
  mediaPath: string | null;
  mediaId: string | null;
  validFrom: Date | null;
  validUntil: Date | null;
}

/** What a rule looks at in a match. */
export interface LicensedUse {
  host: string | null;
  mediaId: string | null;
  mediaPath: string | null;
  /** When the copy was first seen. */
  seenAt: Date;
}

/** The host is the licensee's domain, or one of its subdomains when the licence covers them. */
export function hostCovered(host: string | null, domain: string, includeSubdomains: boolean): boolean {
  if (!host) return false;
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === domain || (includeSubdomains && h.endsWith(`.${domain}`));
}

/** A media path is the licensed one, or below the licensed folder. */
export function pathCovered(path: string | null, licensed: string): boolean {
  if (path === null) return false;
  const folder = licensed.replace(/\/+$/, '');
  return path === folder || path.startsWith(`${folder}/`);
}

/** Whether the licence covers this use: its site, its media (all when unrestricted) and its dates. */
export function covers(rule: LicenceRule, use: LicensedUse): boolean {
  if (!hostCovered(use.host, rule.domain, rule.includeSubdomains)) return false;
  if (rule.mediaId !== null && use.mediaId !== rule.mediaId) return false;
  if (rule.mediaPath !== null && !pathCovered(use.mediaPath, rule.mediaPath)) return false;
  if (rule.validFrom && use.seenAt < rule.validFrom) return false;
  if (rule.validUntil && use.seenAt > rule.validUntil) return false;
  return true;
}

/** The licence a use falls under: the oldest rule that covers it, or null. */
export const licenceFor = (rules: LicenceRule[], use: LicensedUse): LicenceRule | null => rules.find((r) => covers(r, use)) ?? null;
