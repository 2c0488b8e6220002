import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { AllowList } from './allow-list.js';
import { FetchError } from './fetch-error.js';

/** Resolves a name to all its addresses; injectable so tests can play a rebinding DNS. */
export type Resolver = (hostname: string, family: number) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname, family) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, family }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/**
 * The `lookup` handed to the socket: the addresses it returns are the only ones the socket may
 * connect to, so checking them here (not before the request) defeats DNS rebinding. One forbidden
 * address refuses the whole name: a public name that also points inside is not trusted.
 */
export function guardedLookup(allow: AllowList, resolver: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    checkedAddresses(hostname, family, allow, resolver).then(
      (addresses) => {
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

async function checkedAddresses(
  hostname: string,
  family: number,
  allow: AllowList,
  resolver: Resolver,
): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await resolver(hostname, family);
  } catch (err) {
    throw new FetchError('dns_error', `cannot resolve ${hostname} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (addresses.length === 0) throw new FetchError('dns_error', `${hostname} has no address`);
  if (!addresses.every((a) => allow.permits(hostname, a.address))) {
    throw new FetchError('address_not_allowed', `${hostname} resolves to a non-public address`);
  }
  return addresses;
}
