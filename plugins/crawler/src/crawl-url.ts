import { getDomain } from 'tldts';

/** Longest URL kept in the frontier: longer ones are generated (calendars, session ids), not written. */
export const MAX_URL_LENGTH = 2048;

/** Query parameters that only track visitors: dropped so one page is one URL. */
const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid|_ga)$/i;

/**
 * The canonical form of a link found on `base`: absolute, http(s) only, no fragment, no
 * credentials, default port dropped, host lower case (WHATWG URL does that), tracking parameters
 * removed and the rest sorted. null for anything we do not crawl.
 */
export function canonicalUrl(raw: string, base?: string | URL): string | null {
  const text = raw.trim();
  if (text === '' || text.length > MAX_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || url.hostname === '') return null;
  url.hash = '';
  if (url.search !== '') {
    const kept = [...url.searchParams].filter(([k]) => !TRACKING_PARAMS.test(k));
    kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    url.search = new URLSearchParams(kept).toString();
  }
  const href = url.href;
  return href.length > MAX_URL_LENGTH ? null : href;
}

/**
 * The site a host belongs to. A host and its `www.` twin are one site; other subdomains are sites
 * of their own. A host without a registrable domain (an IP address, localhost, an intranet name)
 * is a site of its own, named by its host.
 */
export function siteOf(hostname: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host.startsWith('www.') && getDomain(host.slice(4)) ? host.slice(4) : host;
}

export function inSite(url: string, site: string): boolean {
  try {
    return siteOf(new URL(url).hostname) === site;
  } catch {
    return false;
  }
}

/** scheme://host:port: the unit of robots.txt and of politeness. */
export function originOf(url: string): string {
  return new URL(url).origin;
}
