import { getDomain } from 'tldts';

/** Longest URL kept in the frontier: longer ones are generated (calendars, session ids), not written. */
export const MAX_URL_LENGTH = 2048;

/** Query parameters that only track visitors: dropped so one page is one URL. */
const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid|_ga)$/i;
/**
 * Session ids (Java, PHP, ASP, ColdFusion), as Heritrix's StripSessionIDs removes them: a site that
 * puts a fresh one in every link otherwise offers every page under endless URLs (a crawler trap).
 * `sid` only when its value looks like one (16+ letters and digits): the name is used for other things.
 */
const SESSION_PARAMS = /^(jsessionid|phpsessid|aspsessionid[a-z]*|cfid|cftoken|sessionid|session_id)$/i;
const SESSION_SID = (k: string, v: string) => /^sid$/i.test(k) && /^[0-9a-z]{16,}$/i.test(v);
/** `;jsessionid=...` path parameters (Java servlets' URL rewriting). */
const PATH_SESSION = /;jsessionid=[^/;]*/gi;

/**
 * The canonical form of a link found on `base`: absolute, http(s) only, no fragment, no
 * credentials, default port dropped, host lower case (WHATWG URL does that), tracking parameters
 * and session ids removed and the rest sorted. null for anything we do not crawl.
 */
export function canonicalUrl(raw: string, base?: string | URL, maxLength = MAX_URL_LENGTH): string | null {
  const text = raw.trim();
  if (text === '' || text.length > maxLength) return null;
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || url.hostname === '') return null;
  url.hash = '';
  if (url.pathname.includes(';')) url.pathname = url.pathname.replace(PATH_SESSION, '');
  if (url.search !== '') {
    const kept = [...url.searchParams].filter(([k, v]) => !TRACKING_PARAMS.test(k) && !SESSION_PARAMS.test(k) && !SESSION_SID(k, v));
    kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    url.search = new URLSearchParams(kept).toString();
  }
  const href = url.href;
  return href.length > maxLength ? null : href;
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
