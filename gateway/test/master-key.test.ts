import test from 'ava';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@filigrane/db';
import { AccountService } from '@filigrane/plugin-account';
import { ApiKeyService } from '@filigrane/plugin-auth';
import { defaultPlugins } from '../src/index.js';
import { createApp, loadConfig, MasterKeyError, type MasterKeySource } from '@filigrane/server';

let db: TestDatabase;
const dataDir = mkdtempSync(join(tmpdir(), 'filigrane-mk-'));
const file = join(dataDir, 'master.key');
const config = loadConfig({ ...process.env, DATA_DIR: dataDir });

test.before(async () => {
  db = await createTestDatabase();
});
test.after.always(async () => db?.dispose());

const open = (masterKey: MasterKeySource) => createApp({ config, plugins: defaultPlugins(), databaseUrl: db.url, masterKey, http: false, log: () => undefined });

test.serial('the key file is created for an empty database only, and checked at every start', async (t) => {
  const first = await open({ file });
  t.true(existsSync(file));
  t.is(statSync(file).mode & 0o777, 0o600);
  const { account, apiKey } = await first.container.get(AccountService).create({ username: 'mk', email: 'mk@example.com' });
  await first.close();

  const saved = readFileSync(file);
  rmSync(file);
  const missing = await t.throwsAsync(open({ file }), { instanceOf: MasterKeyError });
  t.regex(missing!.message, /missing.*Restore the file from your backup/s);
  t.false(existsSync(file), 'no new key is created for a database that holds secrets');

  const wrong = await t.throwsAsync(open(randomBytes(32)), { instanceOf: MasterKeyError });
  t.regex(wrong!.message, /does not match this database/);

  const right = await open(Buffer.from(saved.toString('utf8').trim(), 'base64'));
  t.is(await right.container.get(ApiKeyService).reveal(account.id), apiKey, 'the right key opens the stored secrets');
  await right.close();
});

test.serial('a database from before the check value: the key is verified on a stored secret, then recorded', async (t) => {
  const key = randomBytes(32);
  const legacyDb = await createTestDatabase();
  const openLegacy = (k: MasterKeySource) => createApp({ config, plugins: defaultPlugins(), databaseUrl: legacyDb.url, masterKey: k, http: false, log: () => undefined });
  try {
    const app = await openLegacy(key);
    await app.container.get(AccountService).create({ username: 'old', email: 'old@example.com' });
    await app.dataSource.query('DELETE FROM master_key_check');
    await app.close();
    await t.throwsAsync(openLegacy(randomBytes(32)), { instanceOf: MasterKeyError, message: /does not match/ });
    const ok = await openLegacy(key);
    const rows = await ok.dataSource.query('SELECT count(*)::int AS n FROM master_key_check');
    t.is(rows[0].n, 1);
    await ok.close();
  } finally {
    await legacyDb.dispose();
  }
});
