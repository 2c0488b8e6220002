import { isForbiddenIp } from './forbidden-address.js';
import { inRange, IpRange, parseCidr, parseIp, unmapIpv4 } from './ip-address.js';

/**
 * The operator's exceptions to the private-address refusal (a local test server, an internal
 * mirror). An exact hostname trusts whatever that name resolves to; an IP or CIDR trusts those
 * addresses whatever name led to them.
 */
export class AllowList {
  private readonly hosts = new Set<string>();
  private readonly ranges: IpRange[] = [];

  constructor(entries: readonly string[] = []) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (entry === '') continue;
      if (entry.includes('/')) {
        const range = parseCidr(entry);
        if (!range) throw new Error(`allow-list entry "${raw}" is not a valid CIDR`);
        this.ranges.push(normalizeRange(range));
        continue;
      }
      const ip = parseIp(entry);
      if (ip) this.ranges.push(normalizeRange({ base: ip, prefix: ip.bytes.length * 8 }));
      else this.hosts.add(normalizeHost(entry));
    }
  }

  /** May a connection for URL host `hostname` go to `address`? */
  permits(hostname: string, address: string): boolean {
    if (this.hosts.has(normalizeHost(hostname))) return true;
    const ip = parseIp(address);
    if (!ip) return false;
    const plain = unmapIpv4(ip);
    return !isForbiddenIp(plain) || this.ranges.some((r) => inRange(plain, r));
  }
}

function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

// '::ffff:10.0.0.0/104' is written for 10.0.0.0/8; compare in one family.
function normalizeRange(range: IpRange): IpRange {
  if (range.prefix < 96) return range;
  const base = unmapIpv4(range.base);
  return base === range.base ? range : { base, prefix: range.prefix - 96 };
}

/** FETCH_ALLOW_HOSTS="127.0.0.1,localhost,10.0.0.0/8" -> ['127.0.0.1', 'localhost', '10.0.0.0/8']. */
export function allowHostsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const entries = (env.FETCH_ALLOW_HOSTS ?? '').split(/[\s,]+/).filter((e) => e !== '');
  new AllowList(entries); // a malformed CIDR fails at boot, not at the first fetch
  return entries;
}
