import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { chromium, type Browser } from 'playwright-core';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';

// The GraphQL explorer as a person uses it, in Debian's Chromium (playwright-core, no browser
// download): GET /graphql opens GraphiQL with the headers editor (the credentials) showing, the
// docs explorer lists the schema, Ctrl+Space completes a field, Ctrl+Enter runs the query with the
// API key typed into the headers. Screenshots go where the console's browser test puts its own.
// Run once: in the embedded suite only (skipped when DATABASE_URL is set).

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = join(tmpdir(), 'filigrane-console-screenshots');
const run = process.env.DATABASE_URL ? test.skip : test.serial;

let server: TestServer;
let alice: TestAccount;
let browser: Browser;

test.before(async () => {
  if (process.env.DATABASE_URL) return;
  server = await startTestServer({ plugins: defaultPlugins(), workers: false });
  alice = await server.createAccount('explorer');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
test.after.always(async () => {
  await browser?.close();
  await server?.close();
});

/** The text of a GraphiQL editor (CodeMirror 5) by its container's class. */
const editorText = (selector: string) => `document.querySelector(${JSON.stringify(`${selector} .CodeMirror`)}).CodeMirror.getValue()`;

run('GraphiQL in Chromium: headers editor for the credentials, docs explorer, completion, a query run with the API key', async (t) => {
  t.timeout(90_000);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(20_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const external: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(server.url) && !r.url().startsWith('data:')) external.push(r.url());
  });
  const posts: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') posts.push(r.url());
  });
  await page.goto(`${server.url}/graphql`);
  await page.locator('.graphiql-container').waitFor();
  await page.waitForFunction(`${editorText('.graphiql-response')}.includes('API key')`);

  // The credentials: the headers editor is open at once, with the Authorization placeholder.
  const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)').filter({ has: page.locator('.CodeMirror') });
  await headers.waitFor();
  t.regex(await headers.locator('.CodeMirror-code').innerText(), /Authorization/);
  t.regex(String(await page.evaluate(editorText('.graphiql-response'))), /Put your API key in the Headers tab/, 'a hint, not an error from the server');
  t.deepEqual(posts, [], 'nothing sent with the placeholder');
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'graphiql-first-load.png') });
  await headers.locator('.CodeMirror').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  // The schema is read with the credentials as soon as they are in (the placeholder only earned a hint, no request).
  const introspection = page.waitForResponse((r) => r.url().startsWith(`${server.url}/graphql`) && r.request().method() === 'POST');
  // Pasted (typing would fight CodeMirror's closing of brackets and quotes).
  await page.keyboard.insertText(JSON.stringify({ Authorization: `Token ${alice.apiKey}` }));
  t.regex(await headers.locator('.CodeMirror-code').innerText(), new RegExp(`Token ${alice.apiKey}`));
  const schema = await introspection;
  t.is(schema.status(), 200, await schema.text());
  t.truthy(((await schema.json()) as { data?: { __schema?: unknown } }).data?.__schema, 'the schema read with the key');

  // Completion in the query editor: "sea" + Ctrl+Space offers the schema's fields starting so (searches, search).
  const query = page.locator('.graphiql-query-editor .CodeMirror');
  await query.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type('{ sea');
  await page.keyboard.press('Control+Space');
  const hints = page.locator('.CodeMirror-hints');
  await hints.waitFor();
  const offered = await hints.locator('.CodeMirror-hint').allInnerTexts();
  t.true(offered.includes('searches') && offered.includes('search'), `completion offered ${offered.join(', ')}`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, 'graphiql-completion.png') });
  await page.keyboard.press('Escape');

  // Run a query with the key from the headers editor: the answer is the account's.
  await query.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText('query Me { account { username } searches(first: 5) { nodes { id } } }');
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction(`${editorText('.graphiql-response')}.includes('explorer')`);
  const answer = JSON.parse(String(await page.evaluate(editorText('.graphiql-response'))));
  t.deepEqual(answer, { data: { account: { username: 'explorer' }, searches: { nodes: [] } } });

  // The docs explorer: the book icon opens it on the schema's root types; Query lists its fields with their descriptions.
  await page.getByRole('button', { name: /Documentation Explorer/ }).click();
  const docs = page.locator('.graphiql-doc-explorer');
  await docs.waitFor();
  await docs.getByText('Query', { exact: true }).first().click();
  await docs.getByText('watermarkingJobs', { exact: true }).waitFor();
  t.regex(await docs.innerText(), /asynchronous searches, newest first/);
  await page.screenshot({ path: join(SCREENSHOTS, 'graphiql-docs.png') });

  t.deepEqual(pageErrors, [], 'no script error');
  t.deepEqual(external, [], 'nothing fetched from another origin (works offline)');
  t.log(`screenshots: ${join(SCREENSHOTS, 'graphiql-first-load.png')}, graphiql-completion.png, graphiql-docs.png`);
  await page.close();
});
