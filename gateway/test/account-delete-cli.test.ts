import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import sharp from 'sharp';
import { IdentityService } from '@filigrane/plugin-auth';
import { startTestServer } from './support/test-server.js';
import { cliEnv, runCli } from './cli-process.js';

// A second process on the server's database: run once, in the embedded suite (the deletion's SQL
// runs on real PostgreSQL in test/e2e/account-deletion.test.ts).
(process.env.DATABASE_URL ? test.skip : test)('filigrane account delete: refused without --yes, then the account and its media are gone; others stay', async (t) => {
  const server = await startTestServer();
  try {
    const doomed = await server.createAccount('doomed');
    const kept = await server.createAccount('kept');
    const png = `data:image/png;base64,${(await sharp({ create: { width: 64, height: 48, channels: 3, background: '#884422' } }).png().toBuffer()).toString('base64')}`;
    for (const a of [doomed, kept]) t.is((await server.call('PUT', `/api/v4/media/${a.username}/dot.png`, { key: a.apiKey, json: { url: png } })).status, 201);
    const env = { ...cliEnv(mkdtempSync(join(tmpdir(), 'filigrane-delete-'))), DATABASE_URL: server.databaseUrl, FILIGRANE_MASTER_KEY: server.masterKey.toString('base64') };
    const unconfirmed = await runCli(['account', 'delete', '--username', 'doomed'], env);
    t.is(unconfirmed.code, 2);
    t.regex(unconfirmed.stderr, /add --yes to confirm/);
    t.is((await server.call('GET', '/api/v4/account/', { key: doomed.apiKey })).status, 200, 'nothing happened');
    t.is((await runCli(['account', 'delete', '--username', 'nobody', '--yes'], env)).code, 1);
    const done = await runCli(['account', 'delete', '--username', 'doomed', '--yes', '--json'], env);
    t.is(done.code, 0, done.stderr);
    t.deepEqual(JSON.parse(done.stdout), { username: 'doomed', deleted: true });
    t.is(await server.app.container.get(IdentityService).findByUsername('doomed'), null);
    // This process cached the key for up to 5 s (another process deleted it).
    await new Promise((r) => setTimeout(r, 5_100));
    t.is((await server.call('GET', '/api/v4/account/', { key: doomed.apiKey })).status, 401);
    t.is((await server.call('GET', '/api/v4/media/kept/dot.png', { key: kept.apiKey })).status, 200);
  } finally {
    await server.close();
  }
});
