import test from 'ava';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import sharp from 'sharp';
import { ACCOUNT_DELETED_HOOKS, contribute, definePlugin } from '@filigrane/core';
import { defaultPlugins } from '@filigrane/gateway';
import { IdentityService } from '@filigrane/plugin-auth';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';

// An account deleted through the API leaves nothing behind, in any plugin's table or in the blob
// store, and another account's data is untouched. Every built-in plugin stores something for both
// accounts (media and their files, matches and aggregations from a real crawl of a loopback site with
// its artifacts, a watermarking with its assets, searches, webhooks, OAuth applications, blacklist).
// A plugin whose hook fails the first time stands for a crash midway: the job runs again and finishes.

let server: TestServer;
let dataDir: string;
let hookCalls: number[] = [];
const failingOnce = definePlugin({
  id: 'test-failing-hook',
  contributions: [
    contribute(ACCOUNT_DELETED_HOOKS, () => async (accountId: number) => {
      hookCalls.push(accountId);
      if (hookCalls.filter((id) => id === accountId).length === 1) throw new Error('the process died here');
    }),
  ],
});

test.before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'filigrane-deletion-'));
  server = await startTestServer({ plugins: [...defaultPlugins(), failingOnce], env: { DATA_DIR: dataDir } });
});
test.after.always(async () => server?.close());

/** Every blob key, read from the disk (not through the service). */
function blobKeys(): Set<string> {
  const root = join(dataDir, 'blobs');
  const keys = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else keys.add(relative(root, join(dir, e.name)));
    }
  };
  walk(root);
  return keys;
}

/** Rows per table holding this account id, over every table of the database with an account column. */
async function rowsOf(accountId: number): Promise<Record<string, number>> {
  const columns: { table_schema: string; table_name: string; column_name: string }[] = await server.app.dataSource.query(
    `SELECT c.table_schema, c.table_name, c.column_name FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.column_name IN ('account_id', 'ingested_by') AND c.table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const out: Record<string, number> = {};
  for (const c of columns) {
    const [{ n }] = await server.app.dataSource.query(`SELECT count(*)::int AS n FROM "${c.table_schema}"."${c.table_name}" WHERE "${c.column_name}" = $1`, [accountId]);
    out[`${c.table_name}.${c.column_name}`] = n;
  }
  const [{ n }] = await server.app.dataSource.query('SELECT count(*)::int AS n FROM accounts WHERE id = $1', [accountId]);
  out.accounts = n;
  return out;
}

/** What an account stores in every built-in plugin, through the API only. */
async function populate(t: { is: (a: unknown, b: unknown, m?: string) => void }, account: TestAccount, seed: number): Promise<void> {
  const photo = await sharp(await syntheticPhoto(seed)).jpeg({ quality: 92 }).toBuffer();
  const dataUri = `data:image/jpeg;base64,${photo.toString('base64')}`;
  const put = await account.call('PUT', `/api/v4/media/${account.username}/album/photo.jpg`, { json: { url: dataUri, metadata: { 'user.client': 'x' } } });
  t.is(put.status, 201, put.text);
  const site = await server.serveSite({
    '/': { type: 'text/html', body: `<html><body><p>Seen here</p><img src="/copy.jpg"></body></html>` },
    '/copy.jpg': { type: 'image/jpeg', body: photo },
  });
  const hook = await server.serveSite({ '/hook': (_req, res) => void res.writeHead(204).end() });
  t.is((await account.call('POST', '/api/v4/account/webhooks/', { json: { url: hook.url('/hook'), events: ['match.created'] } })).status, 201);
  t.is((await account.call('POST', '/api/v4/domains/blacklist/', { json: { url: `blocked-${seed}.example.com` } })).status, 201);
  t.is((await account.call('POST', '/api/v3/account/oauth/applications/', { json: { name: 'CMS' } })).status, 201);
  const wm = await account.call('POST', '/api/v4/watermarking/', { body: photo, headers: { 'content-type': 'image/jpeg' } });
  t.is(wm.status < 300, true, wm.text);
  const search = await account.call('POST', '/api/v4/searches/', { json: { file: dataUri, sync: false } });
  t.is(search.status < 300, true, search.text);
  const crawl = await account.call('POST', '/api/v3/crawling/sessions/', { json: { url: site.url('/'), download_delay: 0 } });
  t.is(crawl.status, 201, crawl.text);
  // The crawl finishes its batch (artifacts, matches) a moment after its last job.
  let session: { state: string } = { state: '' };
  for (const end = Date.now() + 90_000; Date.now() < end && session.state !== 'done' && session.state !== 'failed'; await new Promise((r) => setTimeout(r, 200))) {
    session = (await account.call('GET', `/api/v3/crawling/sessions/${crawl.json.id}/`)).json;
  }
  t.is(session.state, 'done', JSON.stringify(session));
  await server.drainJobs({ timeoutMs: 120_000 });
}

test.serial('deleting an account removes its rows in every table and its files; another account keeps all of its own', async (t) => {
  const bob = await server.createAccount('bob');
  await populate(t, bob, 61);
  const bobRows = await rowsOf(bob.id);
  const bobFiles = blobKeys();
  const alice = await server.createAccount('alice');
  await populate(t, alice, 62);
  // bob may act on alice's home: that grant must not survive her (a new "alice" would be opened to bob).
  await server.get(IdentityService).grant(bob.id, 'home:/alice');
  const aliceRows = await rowsOf(alice.id);
  for (const table of ['media.account_id', 'matches.account_id', 'aggregations.account_id', 'crawl_sessions.account_id', 'watermarking_jobs.account_id', 'searches.account_id', 'webhook_endpoints.account_id', 'blacklisted_domains.account_id', 'oauth_applications.account_id', 'api_keys.account_id', 'account_profiles.account_id']) {
    t.true((aliceRows[table] ?? 0) > 0, `alice has rows in ${table} before (${JSON.stringify(aliceRows)})`);
  }
  const aliceFiles = [...blobKeys()].filter((k) => !bobFiles.has(k));
  t.true(aliceFiles.some((k) => k.startsWith('media/')) && aliceFiles.some((k) => k.startsWith('crawler/')) && aliceFiles.some((k) => k.startsWith('watermarking/')), aliceFiles.join(' '));

  // A bearer token cannot delete, nor a request that does not name the account; then the API key can.
  t.is((await alice.call('DELETE', '/api/v4/account/', { json: { username: 'bob' } })).json.code, 'confirmation_mismatch');
  t.is((await alice.call('DELETE', '/api/v4/account/', { json: {} })).status, 400);
  const deleted = await alice.call('DELETE', '/api/v4/account/', { json: { username: 'alice' } });
  t.is(deleted.status, 202, deleted.text);
  t.like(deleted.json, { username: 'alice', status: 'deleting' });
  t.is((await alice.call('GET', '/api/v4/account/')).status, 401, 'the key stops working at once');

  await server.drainJobs({ timeoutMs: 120_000 });
  t.deepEqual(hookCalls, [alice.id, alice.id], 'the failed first run (a crash midway) was run again');
  const after = await rowsOf(alice.id);
  t.deepEqual(Object.entries(after).filter(([, n]) => n > 0), [], 'no row of alice is left');
  const [grant] = await server.app.dataSource.query(`SELECT count(*)::int AS n FROM account_permissions WHERE permission = 'home:/alice'`);
  t.is(grant.n, 0);
  t.deepEqual([...blobKeys()].filter((k) => !bobFiles.has(k)), [], 'no file of alice is left');
  t.deepEqual([...bobFiles].filter((k) => !blobKeys().has(k)), [], "bob's files are all there");
  const bobAfter = await rowsOf(bob.id);
  t.deepEqual({ ...bobAfter, 'account_permissions.account_id': bobRows['account_permissions.account_id'] }, bobRows, "bob's rows are all there");
  t.is((await bob.call('GET', '/api/v4/media/bob/album/photo.jpg')).status, 200);
  // The username is free again, and the new account sees nothing of the old one.
  const again = await server.createAccount('alice');
  t.is((await again.call('GET', '/api/v4/matches/')).json.count, 0);
  t.is((await again.call('GET', '/api/v4/media/alice/album/photo.jpg')).status, 404);
});
