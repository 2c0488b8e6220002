import { cidr, inRange, IpAddress, IpRange, parseIp } from './ip-address.js';

// IPv4 ranges that are not publicly routable unicast (RFC 6890 and friends).
const FORBIDDEN_V4 = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, incl. cloud metadata 169.254.169.254
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation TEST-NET-1
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation TEST-NET-2
  '203.0.113.0/24', // documentation TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, incl. broadcast 255.255.255.255
].map(cidr);

// IPv6 prefixes whose low 32 bits (or bits 16..47 for 6to4) are an IPv4 address: judged by that address.
const EMBEDS_V4: { range: IpRange; offset: number }[] = [
  { range: cidr('::ffff:0:0/96'), offset: 12 }, // IPv4-mapped
  { range: cidr('::ffff:0:0:0/96'), offset: 12 }, // IPv4-translated (SIIT)
  { range: cidr('::/96'), offset: 12 }, // IPv4-compatible (deprecated); :: and ::1 land in 0.0.0.0/8
  { range: cidr('64:ff9b::/96'), offset: 12 }, // NAT64 well-known prefix
  { range: cidr('2002::/16'), offset: 2 }, // 6to4
];

const GLOBAL_UNICAST_V6 = cidr('2000::/3');
// Special-purpose blocks inside 2000::/3; everything outside it (::, ::1, fc00::/7, fe80::/10,
// ff00::/8, 64:ff9b:1::/48, 100::/64 ...) is refused wholesale.
const FORBIDDEN_V6 = [
  '2001::/23', // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
].map(cidr);

/**
 * True when `ip` must not be fetched from: anything that is not a publicly routable unicast
 * address. Not an IP literal (including non-canonical IPv4 like `127.1`) counts as forbidden:
 * callers resolve names first, and failing closed is the safe default.
 */
export function isForbiddenAddress(ip: string): boolean {
  const parsed = parseIp(ip);
  return parsed === null || isForbiddenIp(parsed);
}

export function isForbiddenIp(ip: IpAddress): boolean {
  if (ip.version === 4) return FORBIDDEN_V4.some((r) => inRange(ip, r));
  const embedding = EMBEDS_V4.find((e) => inRange(ip, e.range));
  if (embedding) {
    return isForbiddenIp({ version: 4, bytes: ip.bytes.slice(embedding.offset, embedding.offset + 4) });
  }
  return !inRange(ip, GLOBAL_UNICAST_V6) || FORBIDDEN_V6.some((r) => inRange(ip, r));
}
