import { isIP } from 'node:net';

/** An IP address as its bytes: 4 for IPv4, 16 for IPv6. */
export interface IpAddress {
  version: 4 | 6;
  bytes: Uint8Array;
}

export interface IpRange {
  base: IpAddress;
  prefix: number;
}

/** Strict parse (dotted-quad IPv4, any IPv6 text form, optional brackets and zone id); null if not an IP. */
export function parseIp(text: string): IpAddress | null {
  let s = text.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const version = isIP(s);
  if (version === 4) return { version: 4, bytes: Uint8Array.from(s.split('.'), Number) };
  if (version === 6) return { version: 6, bytes: ipv6Bytes(s) };
  return null;
}

// Input already validated by isIP; only the shape (`::`, dotted tail) needs handling.
function ipv6Bytes(s: string): Uint8Array {
  const groups = (part: string): number[] => {
    if (part === '') return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        const [a, b, c, d] = g.split('.').map(Number);
        out.push((a! << 8) | b!, (c! << 8) | d!);
      } else out.push(parseInt(g, 16));
    }
    return out;
  };
  const gap = s.indexOf('::');
  const head = groups(gap >= 0 ? s.slice(0, gap) : s);
  const tail = gap >= 0 ? groups(s.slice(gap + 2)) : [];
  const words = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

/** `a.b.c.d/n` or `v6/n`; null if malformed. */
export function parseCidr(text: string): IpRange | null {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return null;
  const base = parseIp(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (!base || !/^\d{1,3}$/.test(bits)) return null;
  const prefix = Number(bits);
  return prefix <= base.bytes.length * 8 ? { base, prefix } : null;
}

export function cidr(text: string): IpRange {
  const range = parseCidr(text);
  if (!range) throw new Error(`invalid CIDR ${text}`);
  return range;
}

export function inRange(ip: IpAddress, range: IpRange): boolean {
  if (ip.version !== range.base.version) return false;
  let bits = range.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip.bytes[i]! & mask) !== (range.base.bytes[i]! & mask)) return false;
  }
  return true;
}

/** `::ffff:a.b.c.d` is the same host as `a.b.c.d` (dual-stack sockets report it so). */
export function unmapIpv4(ip: IpAddress): IpAddress {
  if (ip.version === 6 && inRange(ip, MAPPED)) return { version: 4, bytes: ip.bytes.slice(12) };
  return ip;
}

const MAPPED = cidr('::ffff:0:0/96');
