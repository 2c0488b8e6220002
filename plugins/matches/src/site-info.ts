import { parse } from 'tldts';

export interface SiteInfo {
  /** Full host, e.g. www.lemonde.fr. */
  host: string;
  /** Registrable domain, e.g. lemonde.fr; the host itself when it has none (an IP address, localhost). */
  domain: string;
  /** Public suffix, e.g. fr; '' when the host has no registrable domain. */
  suffix: string;
  name: string;
  country: string | null;
}

// Country-code TLDs whose ISO 3166-1 code differs.
const CCTLD_EXCEPTIONS: Record<string, string> = { uk: 'GB', su: 'RU', ac: 'SH' };

/**
 * Site facts from a URL: registrable domain and public suffix (Public Suffix List), country from a ccTLD.
 * A host without a registrable domain (an IP address, localhost, an intranet name) is a site of its
 * own, named by its host, as the crawler treats it.
 */
export function siteOf(url: string, given: { name?: string; country?: string } = {}): SiteInfo | null {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
  if (host === '') return null;
  const p = parse(host);
  if (!p.domain || !p.publicSuffix) {
    const bare = host.replace(/^\[|\]$/g, '');
    return { host: bare, domain: bare, suffix: '', name: given.name ?? bare, country: given.country?.toUpperCase() ?? null };
  }
  const tld = p.publicSuffix.split('.').pop()!;
  const country = given.country?.toUpperCase() ?? (tld.length === 2 ? (CCTLD_EXCEPTIONS[tld] ?? tld.toUpperCase()) : null);
  const label = p.domainWithoutSuffix ?? p.domain;
  return { host, domain: p.domain, suffix: p.publicSuffix, name: given.name ?? label.charAt(0).toUpperCase() + label.slice(1), country };
}
