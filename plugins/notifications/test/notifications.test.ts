import test from 'ava';
import { ManualClock, TOKENS, type EventPublisher } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { NotificationService } from '@filigrane/plugin-notifications';

let server: TestServer;
const clock = new ManualClock(new Date('2026-11-20T10:00:00Z'));
const publish = (type: string, accountId: number, data: Record<string, unknown>) => server.app.container.get<EventPublisher>(TOKENS.Events).publish({ type, accountId, data });
const outbox = async (accountId: number) =>
  (await server.app.dataSource.query('SELECT reason, to_address, subject, body, status FROM notification_outbox WHERE account_id = $1 ORDER BY id', [accountId])) as {
    reason: string; to_address: string; subject: string; body: string; status: string;
  }[];
const webMatch = (id: number, page: string, domain: string, country: string | null) => ({ id: String(id), kind: 'web', page_url: page, site: { domain, country } });

test.before(async () => {
  server = await startTestServer({ plugins: ['notifications'], clock, workers: true });
});
test.after.always(async () => server?.close());

test.serial('notify_web: an immediate mail per new web match, in the account language, only for the chosen countries', async (t) => {
  const a = await server.createAccount('immediate');
  const set = await server.call('POST', '/api/v4/account/settings/', { key: a.apiKey, json: { lang: 'fr', notifications: { notify_web: true }, notif_site_countries: ['FR'] } });
  t.is(set.status, 200, set.text);
  await publish('match.created', a.id, webMatch(1, 'https://www.lemonde.fr/a', 'lemonde.fr', 'FR'));
  await publish('match.created', a.id, webMatch(2, 'https://www.spiegel.de/b', 'spiegel.de', 'DE'));
  await publish('match.created', a.id, { id: '3', kind: 'press', page_url: null, site: null });
  const mails = await outbox(a.id);
  t.is(mails.length, 1, 'the German site and the press match send nothing immediate');
  t.like(mails[0], { reason: 'notify_web', to_address: 'immediate@example.com' });
  t.regex(mails[0].subject, /Nouvelle détection web/);
  t.regex(mails[0].body, /https:\/\/www\.lemonde\.fr\/a/);
  // Without SMTP_URL, the send job leaves the mail in the outbox.
  const sent = await (async () => {
    for (let i = 0; i < 100; i++) {
      const [m] = await outbox(a.id);
      if (m.status !== 'pending') return m;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  })();
  t.is(sent?.status, 'outbox');
  const other = await server.createAccount('quiet');
  await publish('match.created', other.id, webMatch(4, 'https://x.example.fr/', 'example.fr', 'FR'));
  t.deepEqual(await outbox(other.id), [], 'flags off: nothing');
});

test.serial('daily digests: new web matches by page and by site, press matches; one mail per account, nothing when nothing is new', async (t) => {
  const a = await server.createAccount('digester');
  await server.call('POST', '/api/v4/account/settings/', { key: a.apiKey, json: { notifications: { notify_match_site_daily: true, notify_match_url_daily: true, notify_pdf_daily: true } } });
  await publish('match.created', a.id, webMatch(10, 'https://news.example.com/1', 'example.com', 'US'));
  await publish('match.created', a.id, webMatch(11, 'https://news.example.com/2', 'example.com', 'US'));
  await publish('match.created', a.id, webMatch(12, 'https://blog.example.org/x', 'example.org', null));
  await publish('match.created', a.id, { id: '13', kind: 'press', page_url: 'Le Monde 2026-11-20', site: null });
  const weekly = await server.createAccount('weekly-only');
  await server.call('POST', '/api/v4/account/settings/', { key: weekly.apiKey, json: { notifications: { notify_match_site_weekly: true } } });
  await publish('match.created', weekly.id, webMatch(14, 'https://a.example.net/', 'example.net', null));

  clock.advance(3_600_000);
  const service = server.app.container.get(NotificationService);
  t.true((await service.digests('daily')) >= 1);
  const [digest] = (await outbox(a.id)).filter((m) => m.reason === 'digest_daily');
  t.regex(digest.subject, /daily Filigrane digest: 4 new matches/);
  t.regex(digest.body, /by page\n- https:\/\/blog\.example\.org\/x: 1 match\n- https:\/\/news\.example\.com\/1: 1 match/);
  t.regex(digest.body, /by site\n- example\.com \(US\): 2 matches\n- example\.org: 1 match/);
  t.regex(digest.body, /New press matches\n- Le Monde 2026-11-20: 1 match/);
  t.deepEqual(await outbox(weekly.id), [], 'a weekly-only account gets no daily digest');
  await service.digests('weekly');
  t.is((await outbox(weekly.id)).length, 1);

  clock.advance(2 * 86_400_000);
  const before = (await outbox(a.id)).length;
  await service.digests('daily');
  t.is((await outbox(a.id)).length, before, 'nothing new, no digest');
});
