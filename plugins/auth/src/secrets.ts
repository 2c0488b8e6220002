import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** A random credential: 240 bits, URL-safe, with a readable prefix saying what it is. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(30).toString('base64url')}`;
}

/** Salted scrypt hash for secrets that are verified, never shown again (client secrets). */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(secret, salt, 32);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(secret, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected);
}

// Passwords are guessable, unlike the random secrets above: scrypt with OWASP's memory-hard
// parameters (N=2^15, r=8, p=3: 32 MiB per hash), recorded in the hash so they can grow later.
const PASSWORD_COST = { N: 2 ** 15, r: 8, p: 3 };
const scryptWith = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;
const maxmemOf = (N: number, r: number) => 256 * N * r;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = PASSWORD_COST;
  const hash = await scryptWith(password.normalize('NFC'), salt, 32, { N, r, p, maxmem: maxmemOf(N, r) });
  return `scrypt-v2$${N}$${r}$${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** A stored hash nobody's password matches: verified when the account is unknown, so timing says nothing. */
export const UNUSABLE_PASSWORD_HASH = `scrypt-v2$${PASSWORD_COST.N}$${PASSWORD_COST.r}$${PASSWORD_COST.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(32).toString('base64url')}`;

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt-v2' || !salt || !hash) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  // Bounds on what a stored hash may ask for: a crafted row cannot make us allocate gigabytes.
  if (![cost.N, cost.r, cost.p].every(Number.isInteger) || cost.N > 2 ** 20 || cost.r > 32 || cost.p > 16) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptWith(password.normalize('NFC'), Buffer.from(salt, 'base64url'), expected.length, { ...cost, maxmem: maxmemOf(cost.N, cost.r) + 1024 });
  return timingSafeEqual(actual, expected);
}
