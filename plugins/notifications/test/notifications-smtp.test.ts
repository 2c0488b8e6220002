import test from 'ava';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerEnvelope } from 'smtp-server';
import { ManualClock, TOKENS, type EventPublisher } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { NotificationService } from '@filigrane/plugin-notifications';

// With SMTP_URL set, mails go out through nodemailer to a real SMTP server on loopback (smtp-server),
// parsed back with mailparser: what a mail client would receive.
let server: TestServer;
let smtp: SMTPServer;
const clock = new ManualClock(new Date('2026-11-20T10:00:00Z'));
const received: { envelope: SMTPServerEnvelope; mail: ParsedMail }[] = [];
const REFUSED = 'refused@example.com';

const publish = (type: string, accountId: number, data: Record<string, unknown>) => server.app.container.get<EventPublisher>(TOKENS.Events).publish({ type, accountId, data });
const outbox = async (accountId: number) =>
  (await server.app.dataSource.query('SELECT reason, status, error, sent_at FROM notification_outbox WHERE account_id = $1 ORDER BY id', [accountId])) as {
    reason: string; status: string; error: string | null; sent_at: Date | null;
  }[];

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await probe();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
const mailTo = (address: string) => until(`a mail to ${address}`, () => received.find((r) => r.envelope.rcptTo.some((a) => a.address === address)));

test.before(async () => {
  smtp = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS offered (nodemailer would upgrade to it), no AUTH needed.
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address === REFUSED) return callback(Object.assign(new Error('550 mailbox unavailable'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push({ envelope: structuredClone(session.envelope), mail });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((ok) => smtp.listen(0, '127.0.0.1', ok));
  const port = (smtp.server.address() as AddressInfo).port;
  server = await startTestServer({ plugins: ['notifications'], clock, workers: true, env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Filigrane <alerts@filigrane.test>' } });
});
test.after.always(async () => {
  await server?.close();
  await new Promise<void>((ok) => (smtp ? smtp.close(() => ok()) : ok()));
});

test.serial('an immediate notify_web mail arrives over SMTP: recipient, sender, French subject and body', async (t) => {
  const a = await server.createAccount('smtp-fr');
  const set = await server.call('POST', '/api/v4/account/settings/', { key: a.apiKey, json: { lang: 'fr', notifications: { notify_web: true } } });
  t.is(set.status, 200, set.text);
  await publish('match.created', a.id, { id: '1', kind: 'web', page_url: 'https://www.lemonde.fr/article', site: { domain: 'lemonde.fr', country: 'FR' } });
  const { envelope, mail } = await mailTo('smtp-fr@example.com');
  t.deepEqual(envelope.rcptTo.map((r) => r.address), ['smtp-fr@example.com']);
  t.is(envelope.mailFrom && envelope.mailFrom.address, 'alerts@filigrane.test');
  t.is(mail.to && !Array.isArray(mail.to) ? mail.to.text : '', 'smtp-fr@example.com');
  t.is(mail.subject, 'Nouvelle détection web de vos images', 'the French subject, decoded from its MIME encoding');
  t.regex(mail.text ?? '', /https:\/\/www\.lemonde\.fr\/article/);
  const row = await until('the outbox row marked sent', async () => (await outbox(a.id)).find((m) => m.status === 'sent'));
  t.truthy(row.sent_at);
});

test.serial('an English daily digest arrives over SMTP', async (t) => {
  const a = await server.createAccount('smtp-en');
  await server.call('POST', '/api/v4/account/settings/', { key: a.apiKey, json: { lang: 'en', notifications: { notify_match_site_daily: true } } });
  await publish('match.created', a.id, { id: '2', kind: 'web', page_url: 'https://news.example.com/1', site: { domain: 'example.com', country: 'US' } });
  await publish('match.created', a.id, { id: '3', kind: 'web', page_url: 'https://news.example.com/2', site: { domain: 'example.com', country: 'US' } });
  clock.advance(3_600_000);
  await server.app.container.get(NotificationService).digests('daily');
  const { mail } = await mailTo('smtp-en@example.com');
  t.is(mail.subject, 'Your daily Filigrane digest: 2 new matches');
  t.regex(mail.text ?? '', /example\.com \(US\): 2 matches/);
});

test.serial('a recipient the SMTP server refuses: the mail stays in the outbox as failed, with the reason', async (t) => {
  const a = await server.createAccount('refused');
  await server.call('POST', '/api/v4/account/settings/', { key: a.apiKey, json: { notifications: { notify_web: true } } });
  await publish('match.created', a.id, { id: '4', kind: 'web', page_url: 'https://x.example.org/', site: { domain: 'example.org', country: null } });
  const row = await until('the failed outbox row', async () => (await outbox(a.id)).find((m) => m.status === 'failed'));
  t.regex(row.error ?? '', /550|mailbox unavailable/);
  t.false(received.some((r) => r.envelope.rcptTo.some((x) => x.address === REFUSED)));
});
