import test from 'ava';
import { TOKENS, type AccountLifecycle, type EventPublisher, type JobQueue } from '@filigrane/plugin-api';
import { startTestServer } from '@filigrane/testing';
import plugin, { OVERDUE_QUEUE } from '../src/index.js';

test('requests are stored per account, flagged overdue by the job as the clock moves, opened from match events, forgotten with the account', async (t) => {
  const server = await startTestServer({ plugins: [plugin], clock: new Date('2031-03-01T09:00:00Z'), env: { TAKEDOWN_DAYS: '7', TAKEDOWN_AUTO_OPEN: 'true' } });
  t.teardown(() => server.close());
  const alice = await server.createAccount('alice');
  const bob = await server.createAccount('bob');

  const opened = await alice.call('POST', '/api/v4/takedowns/', { json: { page_url: 'https://news.example/story' } });
  t.is(opened.status, 202, opened.text);
  t.like(opened.json, { page_url: 'https://news.example/story', status: 'open', opened_at: '2031-03-01T09:00:00.000Z' });
  t.is((await alice.call('POST', '/api/v4/takedowns/', { json: { page_url: 'https://news.example/story' } })).json.id, opened.json.id, 'once per page');
  t.like((await alice.call('POST', '/api/v4/takedowns/', { json: { page_url: 'javascript:alert(1)' } })).json, { status_code: 400, code: 'invalid' });
  t.deepEqual((await bob.call('GET', '/api/v4/takedowns/')).json.results, []);

  // A match event (as the matches plugin publishes it) opens one for bob.
  await server.get<EventPublisher>(TOKENS.Events).publish({ type: 'match.created', accountId: bob.id, data: { id: '77', kind: 'web', source: 'crawler', media_id: '1', watermarked: true, page_url: 'https://blog.example/copy', image_url: null, host: 'blog.example', session_id: null, credit: null, site: null } });
  t.like((await bob.call('GET', '/api/v4/takedowns/')).json.results[0], { page_url: 'https://blog.example/copy', match_id: '77', status: 'open' });

  // Six days: still open; eight days: the scheduled job (sent now instead of waiting for cron) flags it.
  const jobs = server.get<JobQueue>(TOKENS.JobQueue);
  server.clock.advance(6 * 86_400_000);
  await jobs.send(OVERDUE_QUEUE, {});
  await server.drainJobs();
  t.is((await alice.call('GET', '/api/v4/takedowns/')).json.results[0].status, 'open');
  server.clock.advance(2 * 86_400_000);
  await jobs.send(OVERDUE_QUEUE, {});
  await server.drainJobs();
  t.is((await alice.call('GET', '/api/v4/takedowns/')).json.results[0].status, 'overdue');

  await server.get<AccountLifecycle>(TOKENS.AccountLifecycle).accountDeleted(alice.id);
  t.deepEqual((await alice.call('GET', '/api/v4/takedowns/')).json.results, []);
});
