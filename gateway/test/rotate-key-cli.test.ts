import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { startTestServer } from './support/test-server.js';
import { cliEnv, runCli } from './cli-process.js';

test('filigrane account rotate-key: a new key works, the old one is refused', async (t) => {
  const server = await startTestServer();
  try {
    const { apiKey: old } = await server.createAccount('rotcli');
    // cliEnv drops both variables (it targets the embedded database): set them again here.
    const env = { ...cliEnv(mkdtempSync(join(tmpdir(), 'filigrane-rotate-'))), DATABASE_URL: server.databaseUrl, FILIGRANE_MASTER_KEY: server.masterKey.toString('base64') };
    const missing = await runCli(['account', 'rotate-key', '--username', 'nobody'], env);
    t.is(missing.code, 1);
    t.regex(missing.stderr, /no account named "nobody"/);
    const rotated = await runCli(['account', 'rotate-key', '--username', 'rotcli', '--json'], env);
    t.is(rotated.code, 0, rotated.stderr);
    const { api_key: fresh } = JSON.parse(rotated.stdout) as { api_key: string };
    t.not(fresh, old);
    t.is((await server.call('GET', '/api/v4/account/', { key: fresh })).status, 200);
    t.is((await server.call('GET', '/api/v4/account/', { key: old })).status, 401);
  } finally {
    await server.close();
  }
});
