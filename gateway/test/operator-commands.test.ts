import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { cliEnv, runCli, startServer } from './cli-process.js';

/**
 * Issue 10 part 4, as a user meets it: `filigrane start` on the embedded database, then
 * `filigrane account create` in another process while it runs, then a second `filigrane start`.
 */
test('while the server runs, account create goes through its database; a second start is refused', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'filigrane-operator-'));
  const env = cliEnv(dataDir);
  const t0 = Date.now();
  const lap = (what: string) => t.log(`${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const server = await startServer(env);
  lap('started');
  try {
    const lock = JSON.parse(readFileSync(join(dataDir, 'pg.lock'), 'utf8')) as { pid: number; port: number };
    t.is(lock.pid, server.child.pid!, 'the lock names the server');

    const created = await runCli(['account', 'create', '--username', 'operator', '--email', 'operator@example.com', '--json'], env);
    t.is(created.code, 0, created.stderr);
    lap('account created');
    const { api_key: apiKey } = JSON.parse(created.stdout) as { api_key: string };
    const res = await fetch(`${server.url}/api/v4/account/`, { headers: { authorization: `Token ${apiKey}` } });
    t.is(res.status, 200, 'the running server accepts the key');
    t.like(await res.json(), { username: 'operator' });

    const second = await runCli(['start'], env);
    lap('second start refused');
    t.is(second.code, 1);
    t.regex(second.stderr, new RegExp(`in use by process ${server.child.pid} \\(.*filigrane\\.js start\\), started \\d{4}-\\d\\d-\\d\\dT`));
    t.is((await fetch(`${server.url}/api/v4/account/`, { headers: { authorization: `Token ${apiKey}` } })).status, 200, 'the server is unharmed');
  } finally {
    t.is(await server.stop(), 0, server.output());
  }
  lap('stopped');
  t.false(existsSync(join(dataDir, 'pg.lock')), 'a clean stop releases the directory');
  rmSync(dataDir, { recursive: true, force: true });
});
