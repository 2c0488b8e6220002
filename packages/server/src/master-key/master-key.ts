import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSource } from 'typeorm';
import { SecretBox } from '@filigrane/core';

/**
 * Where the master key comes from: a fixed key (FILIGRANE_MASTER_KEY, tests), or a key file that
 * may be created, but only for an empty database (see settleMasterKey).
 */
export type MasterKeySource = Buffer | { file: string };

export class MasterKeyError extends Error {
  override name = 'MasterKeyError';
}

const checkValue = (key: Buffer) => createHmac('sha256', key).update('filigrane/master-key-check/v1').digest('base64url');

function readKeyFile(file: string): Buffer | null {
  if (!existsSync(file)) return null;
  chmodSync(file, 0o600);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length < 32) throw new MasterKeyError(`${file} does not hold a base64 master key of 32 bytes or more.`);
  return key;
}

/** A sealed secret already in the database, if any (databases from before the check value). */
async function anySealedSecret(db: DataSource): Promise<string | null> {
  const [t]: { t: string | null }[] = await db.query(`SELECT to_regclass('api_keys')::text AS t`);
  if (!t?.t) return null;
  const rows: { sealed_key: string }[] = await db.query('SELECT sealed_key FROM api_keys LIMIT 1');
  return rows[0]?.sealed_key ?? null;
}

/**
 * Checks the master key against the database's check value, at every start. A database that
 * holds secrets is never given a new key: a missing key file or a different FILIGRANE_MASTER_KEY
 * stops the start with a message saying what to restore, instead of sealing new secrets with a
 * key that cannot open the old ones.
 */
export async function settleMasterKey(db: DataSource, source: MasterKeySource): Promise<Buffer> {
  const where = Buffer.isBuffer(source) ? 'FILIGRANE_MASTER_KEY' : source.file;
  const [stored]: { check_value: string; created: Date }[] = await db.query('SELECT check_value, created FROM master_key_check WHERE id = 1');
  const sealed = stored ? null : await anySealedSecret(db);
  let key = Buffer.isBuffer(source) ? source : readKeyFile(source.file);
  if (!key) {
    if (stored || sealed) {
      throw new MasterKeyError(
        `The master key file ${where} is missing, but this database holds secrets sealed with a master key` +
          `${stored ? ` (set up ${new Date(stored.created).toISOString()})` : ''}. Restore the file from your backup, or set ` +
          'FILIGRANE_MASTER_KEY to the key. A new key is only created for an empty database: one now would make every stored secret undecryptable.',
      );
    }
    key = randomBytes(32);
    const file = (source as { file: string }).file;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  }
  const mine = checkValue(key);
  if (!stored) {
    if (sealed) {
      try {
        new SecretBox(key).open(sealed);
      } catch {
        throw mismatch(where);
      }
    }
    await db.query('INSERT INTO master_key_check (id, check_value) VALUES (1, $1) ON CONFLICT (id) DO NOTHING', [mine]);
    const [now]: { check_value: string }[] = await db.query('SELECT check_value FROM master_key_check WHERE id = 1');
    if (now?.check_value !== mine) throw mismatch(where); // another process set it up with another key
    return key;
  }
  const a = Buffer.from(mine);
  const b = Buffer.from(stored.check_value);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw mismatch(where);
  return key;
}

const mismatch = (where: string) =>
  new MasterKeyError(
    `The master key from ${where} does not match this database: its secrets were sealed with another key. ` +
      'Use the key this database was set up with (restore DATA_DIR/master.key from your backup, or give every process the same FILIGRANE_MASTER_KEY).',
  );
