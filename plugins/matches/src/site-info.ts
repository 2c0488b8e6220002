import { parse } from 'tldts';

export interface SiteInfo {
  /** Full host, e.g. www.lemonde.fr. */
  host: string;
  /** Registrable domain, e.g. lemonde.fr. */
  domain: string;
  suffix: string;
  name: string;
  country: string | null;
}

// Country-code TLDs whose ISO 3166-1 code differs.
const CCTLD_EXCEPTIONS: Record<string, string> = { uk: 'GB', su: 'RU', ac: 'SH' };

/** Site facts from a URL: registrable domain and public suffix (Public Suffix List), country from a ccTLD. */
export function siteOf(url: string, given: { name?: string; country?: string } = {}): SiteInfo | null {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
  const p = parse(host);
  if (!p.domain || !p.publicSuffix) return null;
  const tld = p.publicSuffix.split('.').pop()!;
  const country = given.country?.toUpperCase() ?? (tld.length === 2 ? (CCTLD_EXCEPTIONS[tld] ?? tld.toUpperCase()) : null);
  const label = p.domainWithoutSuffix ?? p.domain;
  return { host, domain: p.domain, suffix: p.publicSuffix, name: given.name ?? label.charAt(0).toUpperCase() + label.slice(1), country };
}
