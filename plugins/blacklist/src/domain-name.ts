import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';

/**
 * Normalises what a user calls a domain: lower case, no scheme, credentials, port, path, query
 * or trailing dot; IDNs become punycode. Returns null when it is not a domain name with an
 * extension (an IP address, a single label, invalid labels).
 */
export function normaliseDomain(input: string): string | null {
  let s = input.trim().toLowerCase();
  if (!s || s.length > 2048) return null;
  s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^\/\//, '');
  s = s.split(/[/?#]/, 1)[0]!;
  s = s.slice(s.lastIndexOf('@') + 1);
  if (s.startsWith('[')) return null; // IPv6 literal
  s = s.replace(/:\d*$/, '').replace(/\.$/, '');
  if (!s || isIP(s)) return null;
  const ascii = domainToASCII(s);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2) return null;
  if (!labels.every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) return null;
  const tld = labels[labels.length - 1]!;
  if (!/^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/.test(tld)) return null;
  return ascii;
}

/** The domain and each parent with an extension: a.b.example.com -> [a.b.example.com, b.example.com, example.com]. */
export function domainAndParents(domain: string): string[] {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out;
}
