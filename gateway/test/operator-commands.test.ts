import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
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

    // Console passwords: set from standard input, then a browser signs in with it; the first start's demo account can too.
    const signIn = (username: string, password: string) =>
      fetch(`${server.url}/api/v4/session/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
    t.is((await signIn('operator', 'operator passphrase 1')).status, 401, 'no password yet');
    const set = await runCli(['account', 'set-password', '--username', 'operator'], env, 'operator passphrase 1\n');
    t.is(set.code, 0, set.stderr);
    const signedIn = await signIn('operator', 'operator passphrase 1');
    t.is(signedIn.status, 201);
    const cookie = signedIn.headers.getSetCookie()[0]!.split(';')[0]!;
    t.like(await (await fetch(`${server.url}/api/v4/account/`, { headers: { cookie } })).json(), { username: 'operator' });
    const short = await runCli(['account', 'set-password', '--username', 'operator', '--password', 'short'], env);
    t.is(short.code, 1);
    t.regex(short.stderr, /at least 10 characters/);
    const demoPassword = /sign in as "demo" with the password (\S+)/.exec(server.output())?.[1];
    t.truthy(demoPassword, server.output());
    t.is((await signIn('demo', demoPassword!)).status, 201, 'the demo account signs in as printed');
    lap('passwords');

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

test('a DATABASE_URL that cannot be reached stops the boot naming the setting, its password hidden; --no-workers needs one', async (t) => {
  t.timeout(60_000);
  // A loopback port nothing listens on.
  const port = await new Promise<number>((resolvePort) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolvePort(free));
    });
  });
  const env = { ...cliEnv(mkdtempSync(join(tmpdir(), 'filigrane-nodb-'))), DATABASE_URL: `postgres://filigrane:hunter2@127.0.0.1:${port}/filigrane` };
  const apiOnly = await runCli(['start', '--no-workers'], cliEnv(mkdtempSync(join(tmpdir(), 'filigrane-nodb-'))));
  t.is(apiOnly.code, 1, 'an API-only process on the embedded database, whose jobs no worker could ever run, is refused');
  t.regex(apiOnly.stderr, /`filigrane start --no-workers` leaves every job .* set DATABASE_URL/);
  for (const args of [['migrate'], ['worker']]) {
    const run = await runCli(args, env);
    t.is(run.code, 1, args[0]);
    t.regex(run.stderr, new RegExp(`DATABASE_URL postgres://filigrane:\\*\\*\\*@127\\.0\\.0\\.1:${port}/filigrane: the database could not be reached: connect ECONNREFUSED`), args[0]);
    t.false(run.stderr.includes('hunter2'), 'the password is not printed');
  }
});
