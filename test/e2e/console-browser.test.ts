import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import test, { type ExecutionContext } from 'ava';
import sharp from 'sharp';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { syntheticPhoto } from '@filigrane/vision';
import { MatchRecorder } from '@filigrane/plugin-matches';
import { startTestServer, type TestAccount, type TestServer, type TestSite } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';

// The console in a real browser (Debian's Chromium through playwright-core, no browser download)
// against the real server and database: sign in, watermark and register an image, search with a
// copy, crawl a site holding the copy and look at the match side by side, change a setting and
// read it back through REST; axe-core on every screen; a screenshot of each screen.
// Run once: in the embedded suite only (skipped when DATABASE_URL is set).

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = join(tmpdir(), 'filigrane-console-screenshots');
const PASSWORD = 'a console passphrase';
const run = process.env.DATABASE_URL ? test.skip : test.serial;

let server: TestServer;
let alice: TestAccount;
let site: TestSite;
let browser: Browser;
let page: Page;
/** Per screen: axe violations by impact, for the log and docs/console.md. */
const axeReport: Record<string, Record<string, number>> = {};

test.before(async () => {
  if (process.env.DATABASE_URL) return;
  rmSync(SCREENSHOTS, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
  console.log(`console screenshots: ${SCREENSHOTS}`);
  server = await startTestServer({ plugins: defaultPlugins(), config: { rateLimit: { perSecond: 100_000, perDay: 10_000_000 } } });
  alice = await server.createAccount('alice', { fullName: 'Alice Martin', permissions: ['press:ingest'] });
  const set = await alice.call('POST', '/graphql', { json: { query: `mutation { changePassword(newPassword: "${PASSWORD}") }` } });
  if (set.json?.data?.changePassword !== true) throw new Error(set.text);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  page.setDefaultTimeout(20_000);
});
test.after.always(async () => {
  await browser?.close();
  await site?.close();
  await server?.close();
});

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is: no serious or critical violation; every count kept for the report. */
async function checkScreen(t: ExecutionContext, name: string, on: Page = page): Promise<void> {
  await on.evaluate(axeSource);
  const violations = (await on.evaluate('axe.run(document, { resultTypes: ["violations"] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 3) })))')) as {
    id: string;
    impact: string;
    nodes: string[];
  }[];
  axeReport[name] = {};
  for (const v of violations) axeReport[name][v.impact] = (axeReport[name][v.impact] ?? 0) + 1;
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.deepEqual(bad, [], `axe on ${name}`);
  await on.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

run('the console: sign in, watermark, register, search, review a crawled match side by side (region outlined) and set its state, settings, axe on every screen', async (t) => {
  t.timeout(150_000);
  const base = server.url;
  const scripts: { url: string; bytes: Buffer }[] = [];
  const pageErrors: string[] = [];
  page.on('pageerror', (err) => {
    pageErrors.push(String(err));
    t.log(`page error: ${String(err)}`);
  });
  page.on('response', async (res) => {
    if (res.request().resourceType() === 'script') scripts.push({ url: res.url(), bytes: await res.body().catch(() => Buffer.alloc(0)) });
  });

  // First load: the sign-in form, its script under budget, in the browser's language.
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Sign in to Filigrane' }).waitFor();
  const firstRender = (await page.evaluate('window.__consoleRendered')) as number;
  const formShown = (await page.evaluate('performance.now()')) as number;
  const gzipped = scripts.reduce((n, s) => n + gzipSync(s.bytes, { level: 9 }).length, 0);
  t.log(`first load: ${scripts.length} script(s), ${(gzipped / 1024).toFixed(1)} KB gzip; first render ${firstRender.toFixed(0)} ms, sign-in form ${formShown.toFixed(0)} ms after navigation`);
  t.true(gzipped > 1000 && gzipped < 300 * 1024, `${gzipped} bytes of gzipped script`);
  await checkScreen(t, 'sign-in');

  // A wrong password is said in words; the right one opens the overview.
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Wrong username or password' }).waitFor();
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  const cookie = (await page.context().cookies()).find((c) => c.name === 'filigrane_session');
  t.true(cookie?.httpOnly, 'the session cookie is HttpOnly');
  t.is(cookie?.sameSite, 'Strict');
  await checkScreen(t, 'overview');

  // Media library: drop a photo (the file input behind the drop zone), watermark it, download, register.
  const photo = await sharp(await syntheticPhoto(2201, 900, 675)).jpeg({ quality: 92 }).toBuffer();
  await page.goto(`${base}/#/media`);
  await page.getByRole('heading', { name: 'Media library' }).waitFor();
  await page.locator('#upload-input').setInputFiles({ name: 'harbour.jpg', mimeType: 'image/jpeg', buffer: photo });
  const done = page.getByRole('button', { name: 'Register in this folder' });
  await done.waitFor({ timeout: 60_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download (watermarked)' }).click()]);
  const watermarked = readFileSync((await download.path())!);
  t.true(watermarked.length > 10_000, 'the watermarked image downloads through the session cookie');
  t.is((await sharp(watermarked).metadata()).width, 900);
  await done.click();
  await page.getByText('Registered:').waitFor({ timeout: 60_000 });
  await page.locator('.tile', { hasText: 'harbour.jpg' }).first().click();
  await page.getByRole('heading', { name: 'Details of harbour.jpg' }).waitFor();
  // Metadata editing, seen through REST.
  await page.getByLabel('Key (user.…)').fill('user.photographer');
  await page.getByLabel('Value', { exact: true }).fill('Jeanne');
  await page.getByRole('button', { name: 'Add', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
  const media = await alice.call('GET', '/api/v4/media/alice/harbour.jpg');
  t.is(media.status, 200, media.text);
  t.is(media.json.metadata?.['user.photographer'], 'Jeanne', JSON.stringify(media.json.metadata));
  t.is(media.json.type, 'image');
  // The thumbnail in the grid loads with the cookie (an <img> sends no Authorization header).
  const thumbOk = await page.locator('.tile img').first().evaluate((img: unknown) => (img as { naturalWidth: number }).naturalWidth > 0);
  t.true(thumbOk, 'file routes accept the session cookie');
  await checkScreen(t, 'media');

  // Search with a copy: a cropped, resized JPEG of the watermarked image.
  const copy = await sharp(watermarked).extract({ left: 60, top: 40, width: 720, height: 540 }).resize({ width: 600 }).jpeg({ quality: 80 }).toBuffer();
  await page.goto(`${base}/#/matches`);
  await page.getByText('Search by image').click();
  await page.getByLabel('Image to look for').setInputFiles({ name: 'found.jpg', mimeType: 'image/jpeg', buffer: copy });
  await page.getByText('1 media found').waitFor({ timeout: 60_000 });
  await page.getByRole('status').getByText('/alice/harbour.jpg').waitFor();
  await checkScreen(t, 'search');

  // A site holding the copy, crawled from the console; the match appears and opens side by side.
  site = await server.serveSite({
    '/': { type: 'text/html', body: '<html><head><title>Harbour news</title></head><body><h1>Harbour</h1><img src="/img/found.jpg" width="600"></body></html>' },
    '/img/found.jpg': { type: 'image/jpeg', body: copy },
  });
  await page.goto(`${base}/#/crawls`);
  await page.getByLabel('Start URL').fill(site.url('/'));
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await page.getByRole('heading', { name: site.url('/') }).waitFor();
  await checkScreen(t, 'crawl-running');
  await page.locator('.badge.state-done').waitFor({ timeout: 60_000 });
  await page.getByRole('cell', { name: /^1\b/ }).first().waitFor();
  await checkScreen(t, 'crawl');

  await page.goto(`${base}/#/matches`);
  const row = page.locator('.vlist a.row').first();
  await row.waitFor({ timeout: 30_000 });
  t.regex((await row.textContent()) ?? '', /127\.0\.0\.1|localhost/);
  await checkScreen(t, 'matches');
  // Keyboard: focus the list, open with Enter, come back with Escape.
  await row.focus();
  await page.keyboard.press('Enter');
  await page.getByText('Registered original').waitFor();
  const originalLoaded = await page.locator('.side-by-side img').first().evaluate((img: unknown) => (img as { complete: boolean; naturalWidth: number }).naturalWidth > 0);
  t.true(originalLoaded, 'the registered original shows');
  await page.locator('.side-by-side img').nth(1).waitFor();
  // The matched region, outlined on both images: the copy was cut from (60, 40) to (780, 580) of the 900 x 675 original.
  t.is(await page.locator('.outlined svg polygon').count(), 2, 'the region is drawn on both images');
  const region = (await alice.call('POST', '/graphql', { json: { query: '{ matches(pageSize: 1) { results { region { copy original } } } }' } })).json.data.matches.results[0].region;
  const expected = [60 / 900, 40 / 675, 780 / 900, 40 / 675, 780 / 900, 580 / 675, 60 / 900, 580 / 675];
  t.true(
    (region.original as number[]).every((v, i) => Math.abs(v - expected[i]!) < 0.02),
    `the copy's outline in the original ${JSON.stringify(region.original)} ~ ${JSON.stringify(expected.map((v) => +v.toFixed(3)))}`,
  );
  t.true((region.copy as number[]).every((v, i) => Math.abs(v - [-60 / 720, -40 / 540, 840 / 720, -40 / 540, 840 / 720, 635 / 540, -60 / 720, 635 / 540][i]!) < 0.03), JSON.stringify(region.copy));
  t.truthy(await page.getByText('Watermark detected').first().textContent(), 'the copy keeps the watermark');
  await page.getByLabel('Tags').fill('todo, harbour');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  let tags: string[] = [];
  for (let i = 0; i < 50 && tags.length === 0; i++) {
    tags = (await alice.call('GET', '/api/v4/matches/')).json.results[0].tags;
    if (tags.length === 0) await new Promise((r) => setTimeout(r, 200));
  }
  t.deepEqual(tags, ['todo', 'harbour'], 'the tags set in the console, seen through REST');
  // Triage from the keyboard: `i` marks the match infringing (the review plugin), seen through REST.
  await page.locator('body').press('i');
  await page.locator('.review button[aria-pressed=true]', { hasText: 'Infringing' }).waitFor();
  const infringing = await alice.call('GET', '/api/v4/matches/?review_state=infringing');
  t.is(infringing.json.count, 1, infringing.text);
  await checkScreen(t, 'match');
  await page.keyboard.press('Escape');
  await page.locator('.vlist a.row .badge.review-infringing').first().waitFor();
  await page.locator('.vlist a.row').first().waitFor();
  // The overview again, now with a match in its chart and lists (a picture only: axe ran on it above).
  await page.goto(`${base}/#/overview`);
  await page.locator('.recent li').first().waitFor();
  await page.screenshot({ path: join(SCREENSHOTS, 'overview-with-match.png'), fullPage: true });

  // Press issues: the screen of accounts that may ingest them.
  await page.goto(`${base}/#/press`);
  await page.getByRole('heading', { name: 'Press issues' }).waitFor();
  await page.getByLabel('PDF file').waitFor();
  await checkScreen(t, 'press');

  // Settings: the language changes the whole interface and is the account's (REST agrees).
  await page.goto(`${base}/#/settings`);
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  await checkScreen(t, 'settings');
  await page.getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Réglages', level: 1 }).waitFor();
  await page.getByLabel('Une correspondance web a été trouvée').check();
  await page.getByRole('status').filter({ hasText: 'Enregistré.' }).waitFor();
  const settings = await alice.call('GET', '/api/v4/account/settings/');
  t.is(settings.json.lang, 'fr');
  t.is(settings.json.notifications.notify_web, true);
  t.is(await page.locator('html').getAttribute('lang'), 'fr');
  await checkScreen(t, 'settings-fr');
  // The case the `i` key opened by itself: its history in French, the service's own note included.
  const [autoCase] = (await alice.call('GET', '/api/v4/cases/')).json.results as { id: string }[];
  await page.goto(`${base}/#/cases/${autoCase!.id}`);
  await page.locator('ol.history li', { hasText: 'automatiquement' }).filter({ hasText: 'Ouvert pour les copies contrefaisantes du site.' }).waitFor();

  // Phone width: nothing wider than the screen, the menu opens from a button.
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto(`${base}/#/matches`);
  await page.locator('.vlist a.row').first().waitFor();
  t.true((await page.evaluate('document.documentElement.scrollWidth')) as number <= 376, 'no horizontal scrolling at 375 px');
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('link', { name: 'Médiathèque' }).waitFor();
  await checkScreen(t, 'phone-matches');

  // Signing out ends the session on the server.
  await page.getByRole('button', { name: 'Se déconnecter' }).click();
  await page.getByRole('heading', { name: 'Connexion à Filigrane' }).waitFor();
  const stale = await fetch(`${base}/api/v4/account/`, { headers: { cookie: `filigrane_session=${cookie!.value}` } });
  t.is(stale.status, 401);

  t.deepEqual(pageErrors, [], 'no script error on any screen');
  t.log(`axe violations per screen (by impact): ${JSON.stringify(axeReport)}`);
  t.log(`screenshots: ${SCREENSHOTS}`);
});

/** Polls a REST read until `ok` holds (the console's change reaches the server through GraphQL). */
async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// The rights screens on the match crawled above (serial: it runs after the first test, on its data).
run('the console rights screens: licensee, evidence pack, case and notice, media deletion, press ingest (each seen through REST)', async (t) => {
  t.timeout(120_000);
  const started = Date.now();
  const base = server.url;
  const en = await alice.call('POST', '/api/v4/account/settings/', { json: { lang: 'en' } });
  t.is(en.status, 200, en.text.slice(0, 300));
  // Cases opened by hand below (the automatic grouping by site is the first test's).
  const grouping = await alice.call('PATCH', '/api/v4/cases/settings/', { json: { auto_group: false } });
  t.is(grouping.status, 200, grouping.text.slice(0, 300));
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const p = await context.newPage();
  p.setDefaultTimeout(20_000);
  const pageErrors: string[] = [];
  p.on('pageerror', (err) => pageErrors.push(String(err)));
  p.on('dialog', (d) => void d.accept());
  t.teardown(() => p.screenshot({ path: join(SCREENSHOTS, 'rights-last.png'), fullPage: true }).catch(() => undefined));
  await p.goto(`${base}/`);
  await p.getByLabel('Username').fill('alice');
  await p.getByLabel('Password').fill(PASSWORD);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();

  const [match] = (await alice.call('GET', '/api/v4/matches/')).json.results as { id: string; site: { domain: string } }[];
  t.truthy(match, 'the first test crawled a match');
  const domain = match!.site.domain;

  // Licensee: a match of the same image seen on a newspaper's site (recorded as the pipeline
  // records it: a licensee names a real domain, not the loopback the crawl ran on) becomes licensed
  // when the licensee is added in the settings.
  const harbour = await alice.call('GET', '/api/v4/media/alice/harbour.jpg');
  const mediaId = Number(new URL(harbour.json.thumbnail).pathname.split('/')[4]);
  const seen = await server.get(MatchRecorder).record({
    sighting: { accountId: alice.id, source: 'test', kind: 'web', image: {}, imageUrl: 'https://www.harbour-weekly.fr/img/harbour.jpg', page: { url: 'https://www.harbour-weekly.fr/news' }, seenAt: new Date() },
    mediaId,
    watermarked: true,
    exclusive: null,
    query: { width: 600, height: 450, format: 'jpeg' },
  });
  await p.goto(`${base}/#/settings`);
  await p.getByLabel('Licensee name').fill('Harbour Weekly');
  await p.getByLabel('Domain (their site)').fill('harbour-weekly.fr');
  // Its scope: the contract's reference and dates (the match was seen today, within them).
  const year = new Date().getUTCFullYear();
  await p.getByLabel('Contract reference (optional)').fill('HW-2026-04');
  await p.getByLabel('Valid from (optional)').fill(`${year - 1}-01-01`);
  await p.getByLabel('Valid until (optional)').fill(`${year + 1}-12-31`);
  await p.getByRole('button', { name: 'Add licensee' }).click();
  await p.locator('section[aria-labelledby=licensees]').getByText('Harbour Weekly').waitFor();
  await p.locator('section[aria-labelledby=licensees]').getByText(`${year - 1}-01-01 – ${year + 1}-12-31 · HW-2026-04`).waitFor();
  const licensees = await alice.call('GET', '/api/v4/licensees/');
  t.like(licensees.json.results?.[0], { domain: 'harbour-weekly.fr', include_subdomains: true, reference: 'HW-2026-04', valid_from: `${year - 1}-01-01T00:00:00.000Z`, valid_until: `${year + 1}-12-31T23:59:59.999Z` }, licensees.text.slice(0, 300));
  const licensed = await until(() => alice.call('GET', '/api/v4/matches/?review_state=licensed'), (r) => r.json.count === 1, 'the match licensed by the rule');
  t.is(String(licensed.json.results[0].id), String(seen.id));
  // The rights holder notices name by default, in the settings' cases section; REST reads it back.
  const caseSettings = p.locator('section[aria-labelledby=case-settings]');
  await p.getByLabel('Rights holder name').fill('Alice Martin Photo');
  await p.getByLabel('Rights holder e-mail').fill('rights@alice.example');
  await caseSettings.getByRole('button', { name: 'Save' }).click();
  await caseSettings.getByText('Saved.').waitFor();
  const holderBack = await alice.call('GET', '/api/v4/cases/settings/');
  t.like(holderBack.json.rights_holder, { name: 'Alice Martin Photo', email: 'rights@alice.example' }, holderBack.text.slice(0, 300));
  await checkScreen(t, 'settings-licensee', p);
  await p.goto(`${base}/#/matches/${seen.id}`);
  await p.locator('.review button[aria-pressed=true]', { hasText: 'Licensed' }).waitFor();
  // Its copy lives on a site this machine cannot reach: said in words, not a broken image.
  await p.getByText('The image could not be loaded from where it was found').waitFor();
  await checkScreen(t, 'match-licensed', p);
  // The review's audit trail: the licence names itself, set by a licensee rule, not by a person.
  const trail = p.locator('details.review-history');
  await trail.getByText('by a licensee rule').waitFor();
  await trail.getByText('Licensed to Harbour Weekly').waitFor();
  // A stray % in a typed address: the screen says the case does not exist, and no script fails.
  await p.goto(`${base}/#/cases/%E0%A4%A`);
  await p.getByText('It does not exist').waitFor();
  t.deepEqual(pageErrors, [], 'no script error on a malformed address');

  await p.goto(`${base}/#/matches/${match!.id}`);
  await p.getByText('Registered original').waitFor();

  // Evidence: capture a pack of the match; it appears, completes, and its WACZ downloads (REST agrees on the SHA-256).
  await p.getByRole('button', { name: 'Capture evidence' }).click();
  await p.locator('#match-evidence ~ ul li, .packs li').first().waitFor();
  const link = p.locator('.packs a', { hasText: 'Download' }).first();
  await link.waitFor({ timeout: 60_000 });
  const packs = (await alice.call('GET', '/api/v4/evidence/')).json.results as { id: string; sha256: string; status: string }[];
  t.is(packs.length, 1);
  t.is(packs[0]!.status, 'complete');
  const [wacz] = await Promise.all([p.waitForEvent('download'), link.click()]);
  const bytes = readFileSync((await wacz.path())!);
  t.is(bytes.subarray(0, 2).toString('latin1'), 'PK', 'a WACZ is a ZIP');
  t.is(createHash('sha256').update(bytes).digest('hex'), packs[0]!.sha256, 'the downloaded pack is the one REST describes');
  await checkScreen(t, 'match-evidence', p);

  // The crawled match joined its site's case when the first test marked it infringing (automatic grouping): the view says so.
  await p.locator('.actions a', { hasText: 'In the case' }).waitFor();

  // A case opened by hand from the newspaper's match marked infringing (key i; a person's decision
  // outranks the licence), then a DMCA notice made from the case screen.
  await p.goto(`${base}/#/matches/${seen.id}`);
  await p.getByRole('heading', { name: 'harbour-weekly.fr', level: 1 }).waitFor();
  await p.locator('body').press('i');
  await p.locator('.review button[aria-pressed=true]', { hasText: 'Infringing' }).waitFor();
  await p.getByRole('button', { name: 'Open a case' }).click();
  await p.getByRole('link', { name: 'Open the case' }).click();
  await p.getByRole('heading', { name: 'Takedown notices' }).waitFor();
  const opened = (await alice.call('GET', '/api/v4/cases/?site=harbour-weekly.fr')).json.results as { id: string }[];
  t.is(opened.length, 1);
  const held = await alice.call('GET', `/api/v4/cases/${opened[0]!.id}/`);
  t.deepEqual(held.json.matches.map((m: { id: string }) => String(m.id)), [String(seen.id)], held.text.slice(0, 300));
  t.is(held.json.title, 'harbour-weekly.fr', 'the case is named after the match shown, not the one shown before');
  await checkScreen(t, 'case', p);
  await p.getByLabel('Rights holder’s e-mail').fill('alice@example.com');
  await p.getByRole('button', { name: 'Make a notice' }).click();
  const pdfLink = p.locator('.notices a', { hasText: 'PDF' }).first();
  await pdfLink.waitFor({ timeout: 30_000 });
  const caseView = await alice.call('GET', `/api/v4/cases/${opened[0]!.id}/`);
  t.is(caseView.json.notices?.length, 1, caseView.text.slice(0, 300));
  t.is(caseView.json.notices[0].type, 'dmca');
  const [pdf] = await Promise.all([p.waitForEvent('download'), pdfLink.click()]);
  t.is(readFileSync((await pdf.path())!).subarray(0, 5).toString('latin1'), '%PDF-', 'the notice PDF downloads');
  await checkScreen(t, 'case-notice', p);

  // Sending the notice: this server has no SMTP, so e-mailing it is refused in words with what to do;
  // recorded as sent by other means, the case is notice_sent, and deleting it is refused in words.
  const caseId = opened[0]!.id;
  await p.getByLabel('Host’s e-mail (abuse or legal address)').fill('abuse@harbour-weekly.fr');
  await p.getByRole('button', { name: 'Send by e-mail' }).click();
  await p.getByText('This server sends no e-mail. Download the notice (PDF), send it yourself').waitFor();
  t.is((await alice.call('GET', `/api/v4/cases/${caseId}/`)).json.state, 'open', 'a refused mail changes nothing');
  await p.getByLabel('Sent another way (where: web form, letter…)').fill('harbour-weekly.fr contact form');
  await p.getByRole('button', { name: 'Record as sent' }).click();
  await p.locator('dd .badge', { hasText: 'Notice sent' }).waitFor();
  const sent = await alice.call('GET', `/api/v4/cases/${caseId}/`);
  t.is(sent.json.state, 'notice_sent', sent.text.slice(0, 300));
  t.like(sent.json.notices[0], { sent_via: 'manual', sent_to: 'harbour-weekly.fr contact form' });
  await p.getByText('sent by other means (harbour-weekly.fr contact form)').first().waitFor();
  // The history says where it went too (GraphQL's CaseHistoryEntry.sentTo/sentVia, as REST's history).
  await p.locator('ol.history li', { hasText: 'Notice sent' }).filter({ hasText: 'sent by other means (harbour-weekly.fr contact form)' }).waitFor();
  await p.getByRole('button', { name: 'Delete the case' }).click();
  await p.getByText('cannot be deleted. Close it instead.').waitFor();
  // Said once: the translation says all the server's details said, so they are not repeated under it.
  t.is(await p.locator('.error[role=alert]', { hasText: 'cannot be deleted' }).locator('p').count(), 0, 'the refusal is not repeated in the server\'s words');
  t.is((await alice.call('GET', `/api/v4/cases/${caseId}/`)).status, 200, 'the case is still there');
  await checkScreen(t, 'case-notice-sent', p);
  // Resolved (the copy was removed), then closed: REST's history has both moves.
  const moves = async () =>
    ((await alice.call('GET', `/api/v4/cases/${caseId}/`)).json.history as { action: string; from_state: string; to_state: string; resolution: string | null }[])
      .filter((h) => h.action === 'transition')
      .map((h) => [h.from_state, h.to_state, h.resolution]);
  await p.getByLabel('Resolution').selectOption('removed');
  await p.getByLabel('Note (kept in the history)').fill('Removed by the site after the notice');
  await p.getByRole('button', { name: 'Mark resolved' }).click();
  await p.locator('dd .badge', { hasText: 'Resolved' }).waitFor();
  t.deepEqual(await moves(), [['notice_sent', 'resolved', 'removed']]);
  await checkScreen(t, 'case-resolved', p);
  await p.getByRole('button', { name: 'Close the case' }).click();
  await p.locator('dd .badge', { hasText: 'Closed' }).waitFor();
  t.deepEqual(await moves(), [['notice_sent', 'resolved', 'removed'], ['resolved', 'closed', null]]);
  t.is((await alice.call('GET', `/api/v4/cases/${caseId}/`)).json.state, 'closed');
  await p.getByText('This case is closed').waitFor();
  await checkScreen(t, 'case-closed', p);
  await p.goto(`${base}/#/cases`);
  await p.getByRole('link', { name: domain, exact: true }).waitFor();
  await p.getByRole('link', { name: 'harbour-weekly.fr', exact: true }).waitFor();
  await checkScreen(t, 'cases', p);
  // The cases and a case at phone width: nothing wider than the screen.
  await p.setViewportSize({ width: 375, height: 800 });
  t.true((await p.evaluate('document.documentElement.scrollWidth')) as number <= 376, 'cases: no horizontal scrolling at 375 px');
  await p.goto(`${base}/#/cases/${opened[0]!.id}`);
  await p.getByRole('heading', { name: 'Takedown notices' }).waitFor();
  t.true((await p.evaluate('document.documentElement.scrollWidth')) as number <= 376, 'a case: no horizontal scrolling at 375 px');
  await checkScreen(t, 'phone-case', p);
  // An open case with every action's form, at phone width too.
  const [openCase] = (await alice.call('GET', '/api/v4/cases/?state=open')).json.results as { id: string }[];
  t.truthy(openCase, 'the crawled site\'s case is open');
  await p.goto(`${base}/#/cases/${openCase!.id}`);
  await p.getByRole('button', { name: 'Mark resolved' }).waitFor();
  t.true((await p.evaluate('document.documentElement.scrollWidth')) as number <= 376, 'an open case: no horizontal scrolling at 375 px');
  await checkScreen(t, 'phone-case-open', p);
  // Renamed from the screen; REST has the new title.
  await p.getByLabel('Case', { exact: true }).fill('Loopback copies');
  await p.getByRole('button', { name: 'Rename' }).click();
  await p.getByRole('heading', { name: 'Loopback copies', level: 1 }).waitFor();
  await p.locator('ol.history li', { hasText: 'Renamed' }).filter({ hasText: '“Loopback copies”' }).waitFor();
  t.is((await alice.call('GET', `/api/v4/cases/${openCase!.id}/`)).json.title, 'Loopback copies');
  // A match taken out of the open case; REST's case no longer holds it.
  await p.getByRole('button', { name: `Take out match #${match!.id}` }).click();
  await p.getByRole('heading', { name: 'Matches (0)' }).waitFor();
  t.deepEqual((await alice.call('GET', `/api/v4/cases/${openCase!.id}/`)).json.matches, []);
  await p.setViewportSize({ width: 1280, height: 900 });

  // Press: a one-page PDF ingested from the press screen, listed, and known to REST.
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([420, 595]).drawText('Harbour Weekly, page one', { x: 40, y: 540, size: 18, font });
  const pdfBytes = Buffer.from(await doc.save());
  await p.goto(`${base}/#/press`);
  await p.getByLabel('Publication').fill('Harbour Weekly');
  await p.getByLabel('Issue date').fill('2026-11-20');
  await p.getByLabel('PDF file').setInputFiles({ name: 'harbour-weekly.pdf', mimeType: 'application/pdf', buffer: pdfBytes });
  await p.getByRole('button', { name: 'Ingest' }).click();
  await p.getByRole('cell', { name: 'Harbour Weekly' }).waitFor();
  const issues = await alice.call('GET', '/api/v4/press/issues/');
  t.is(issues.json.count ?? issues.json.results?.length, 1, issues.text.slice(0, 300));
  await checkScreen(t, 'press-ingested', p);

  // Media deletion: the registered image, from its details; REST no longer has it.
  await p.goto(`${base}/#/media?path=%2Falice&media=%2Falice%2Fharbour.jpg`);
  await p.getByRole('heading', { name: 'Details of harbour.jpg' }).waitFor();
  await p.getByRole('button', { name: 'Delete', exact: true }).click();
  await p.getByRole('heading', { name: 'Details of harbour.jpg' }).waitFor({ state: 'detached' });
  t.is((await alice.call('GET', '/api/v4/media/alice/harbour.jpg')).status, 404);
  await p.locator('.tile', { hasText: 'harbour.jpg' }).waitFor({ state: 'detached' });
  await checkScreen(t, 'media-deleted', p);

  t.deepEqual(pageErrors, [], 'no script error on the rights screens');
  t.log(`rights screens: ${((Date.now() - started) / 1000).toFixed(1)} s; axe: ${JSON.stringify(Object.fromEntries(['settings-licensee', 'match-licensed', 'match-evidence', 'case', 'case-notice', 'case-notice-sent', 'case-resolved', 'case-closed', 'cases', 'phone-case', 'phone-case-open', 'press-ingested', 'media-deleted'].map((k) => [k, axeReport[k]])))}`);
});
