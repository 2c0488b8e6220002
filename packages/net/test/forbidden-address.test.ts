import test from 'ava';
import { AllowList, allowHostsFromEnv, FetchError, guardedLookup, isForbiddenAddress, Resolver } from '../src/index.js';
import type { LookupAddress } from 'node:dns';

const FORBIDDEN = [
  '0.0.0.0', '0.1.2.3', '10.0.0.1', '10.255.255.255', '100.64.0.1', '100.127.255.254', '127.0.0.1',
  '127.255.255.254', '169.254.169.254', '169.254.0.1', '172.16.0.1', '172.31.255.255', '192.0.0.8',
  '192.0.2.10', '192.168.1.1', '198.18.0.1', '198.19.255.255', '198.51.100.7', '203.0.113.9',
  '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
  '::', '::1', '[::1]', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'ff02::1', 'ff0e::1',
  '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:7F00:0001', '::ffff:10.1.2.3', '::ffff:a9fe:a9fe', '::127.0.0.1',
  '::ffff:0:192.168.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b:1::1', '2002:7f00:1::', '2002:a9fe:a9fe::1',
  '2001:db8::1', '2001::1', '2001:2::1', '3fff::1', '100::1', 'fec0::1',
  // Not canonical IP literals: refused, never guessed at.
  '127.1', '0x7f.0.0.1', '2130706433', 'localhost', '', 'example.com',
];
const ALLOWED = [
  '8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1',
  '169.253.255.255', '192.169.0.1', '198.17.255.255', '198.20.0.1', '223.255.255.255',
  '2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4007:80e::200e',
  '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '2002:808:808::1',
];

test('isForbiddenAddress refuses every non-public v4/v6 form, including embedded v4', (t) => {
  for (const ip of FORBIDDEN) t.true(isForbiddenAddress(ip), `${ip} must be forbidden`);
  for (const ip of ALLOWED) t.false(isForbiddenAddress(ip), `${ip} must be allowed`);
});

test('allow list: exact hostnames, IPs and CIDRs, mapped forms compared as IPv4', (t) => {
  const allow = new AllowList(['Localhost.', '10.0.0.0/8', '::1', '192.168.1.7']);
  t.true(allow.permits('localhost', '127.0.0.1'));
  t.true(allow.permits('LOCALHOST.', '::1'));
  t.false(allow.permits('other.test', '127.0.0.1'));
  t.true(allow.permits('x.test', '10.9.8.7'));
  t.true(allow.permits('x.test', '::ffff:10.9.8.7'));
  t.true(allow.permits('x.test', '::1'));
  t.true(allow.permits('x.test', '192.168.1.7'));
  t.false(allow.permits('x.test', '192.168.1.8'));
  t.false(allow.permits('x.test', '169.254.169.254'));
  t.true(allow.permits('x.test', '8.8.8.8'), 'public addresses need no entry');
  t.true(new AllowList(['::ffff:127.0.0.0/104']).permits('x', '127.3.2.1'));
  t.throws(() => new AllowList(['10.0.0.0/33']));
});

test('allowHostsFromEnv splits on commas and spaces and rejects a bad CIDR at once', (t) => {
  t.deepEqual(allowHostsFromEnv({ FETCH_ALLOW_HOSTS: '127.0.0.1, localhost,,10.0.0.0/8 ::1/128' }), [
    '127.0.0.1',
    'localhost',
    '10.0.0.0/8',
    '::1/128',
  ]);
  t.deepEqual(allowHostsFromEnv({}), []);
  t.throws(() => allowHostsFromEnv({ FETCH_ALLOW_HOSTS: '10.0.0.0/99' }));
});

function lookupWith(addresses: LookupAddress[], allow = new AllowList()) {
  const resolver: Resolver = async () => addresses;
  const lookup = guardedLookup(allow, resolver);
  return (all: boolean) =>
    new Promise<unknown>((resolve, reject) =>
      lookup('rebind.test', { all }, (err, address) => (err ? reject(err) : resolve(address))),
    );
}

test('guarded lookup: a name with any internal address is refused (DNS rebinding)', async (t) => {
  const rebinding = lookupWith([
    { address: '93.184.216.34', family: 4 },
    { address: '127.0.0.1', family: 4 },
  ]);
  const err = await t.throwsAsync(rebinding(true), { instanceOf: FetchError });
  t.is(err?.code, 'address_not_allowed');
  t.false(err?.message.includes('127.0.0.1'), 'the internal address is not leaked');
  const publicOnly = lookupWith([{ address: '93.184.216.34', family: 4 }]);
  t.deepEqual(await publicOnly(true), [{ address: '93.184.216.34', family: 4 }]);
  t.is(await publicOnly(false), '93.184.216.34');
  const empty = await t.throwsAsync(lookupWith([])(true), { instanceOf: FetchError });
  t.is(empty?.code, 'dns_error');
  const failing = guardedLookup(new AllowList(), async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  });
  const notFound = await t.throwsAsync(
    new Promise((resolve, reject) => failing('nowhere.test', {}, (err, a) => (err ? reject(err) : resolve(a)))),
    { instanceOf: FetchError },
  );
  t.is(notFound?.code, 'dns_error');
});
