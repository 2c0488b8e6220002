import test from 'ava';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';

// Every mounted route (taken from the running server, so a new plugin's routes are covered
// without touching this file) is fed malformed input; none may answer 5xx.
let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer({ plugins: defaultPlugins(), workers: false, env: { FETCH_ALLOW_HOSTS: '' } });
  key = (await server.createAccount('fuzz')).apiKey;
  await server.createAccount('other');
});
test.after.always(async () => server?.close());

const PARAM_VALUES = ['abc', '-1', '99999999999999999999999', '%ff', 'a%00b', 'x'.repeat(3000)];
const WILDCARDS = ['fuzz/a', 'fuzz/%zz/b', 'other/x.jpg', 'fuzz/' + 'd/'.repeat(80) + 'e', '%2e%2e/%2e%2e/etc/passwd'];

function concretePaths(url: string): string[] {
  if (!url.includes(':') && !url.includes('*')) return [url];
  return [...PARAM_VALUES.map((v) => url.replace(/:\w+/g, v).replace('*', WILDCARDS[0]!)), ...WILDCARDS.map((w) => url.replace(/:\w+/g, '1').replace('*', w))];
}

const QUERIES = ['', '?page=abc', '?page_size=1e99&page=-3', '?cursor=%ff%00', '?format=csv', '?format=xml', '?id=x&date_created__gte=not-a-date&watermarked=maybe', '?recursive=yes&hidden=2', '?sync=2&timeout=-1', '?__proto__[x]=1&constructor=1', '?q=%E0%A4%A'];

const huge = 'x'.repeat(200_000);
const deep = '['.repeat(3000) + ']'.repeat(3000);
const junkObject = {
  url: 123, file: { a: 1 }, name: [], metadata: 'x', tags: 5, export: 'yes', page_size: -1, query: null, sync: 'no', timeout: 1e309,
  lang: { x: 1 }, notifications: [1], notif_site_countries: 'FR', filename: 7, filename__startswith: ['a'], type: 3,
  mode: 1, transforms: 'rotate', search_path: 5, filter_marked: 'x', categories: {}, grant_type: 9, __proto__: { polluted: true },
};

interface Variant {
  label: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

const boundary = 'fuzzboundary';
const VARIANTS: Variant[] = [
  { label: 'no body', headers: {} },
  { label: 'empty json', headers: { 'content-type': 'application/json' }, body: '' },
  { label: 'json array', headers: { 'content-type': 'application/json' }, body: '[1,2,3]' },
  { label: 'json string', headers: { 'content-type': 'application/json' }, body: '"str"' },
  { label: 'json null', headers: { 'content-type': 'application/json' }, body: 'null' },
  { label: 'json wrong types', headers: { 'content-type': 'application/json' }, body: JSON.stringify(junkObject).replace('"timeout":null', '"timeout":1e400') },
  { label: 'json __proto__', headers: { 'content-type': 'application/json' }, body: '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}},"url":"data:,x"}' },
  { label: 'json huge values', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://example.com/${huge}`, name: huge, metadata: { [`user.${'k'.repeat(5000)}`]: huge }, file: `data:image/png;base64,${huge}`, tags: Array(10_000).fill('t') }) },
  { label: 'json deep', headers: { 'content-type': 'application/json' }, body: deep },
  { label: 'json invalid utf-8', headers: { 'content-type': 'application/json' }, body: Buffer.from([0x7b, 0x22, 0x75, 0x72, 0x6c, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]) },
  { label: 'json bad file urls', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: 'http://[::1', url: 'http://%zz/', sync: true }) },
  { label: 'json bad file url 2', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: 'http://example.com/%E0%A4%A', url: 'javascript:alert(1)' }) },
  { label: 'form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=%zz&__proto__=1&client_id=%ff' },
  { label: 'multipart no boundary', headers: { 'content-type': 'multipart/form-data' }, body: 'junk' },
  { label: 'multipart __proto__', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: [`--${boundary}`, 'Content-Disposition: form-data; name="__proto__"', '', 'x', `--${boundary}`, 'Content-Disposition: form-data; name="__proto__"', '', 'y', `--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="%ff.svg"', 'Content-Type: image/svg+xml', '', '<svg xmlns="http://www.w3.org/2000/svg"/>', `--${boundary}--`, ''].join('\r\n') },
  { label: 'multipart truncated', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\xff` },
  { label: 'binary jpeg junk', headers: { 'content-type': 'image/jpeg' }, body: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 0xff, 0xd9]) },
  { label: 'binary png header only', headers: { 'content-type': 'image/png' }, body: Buffer.from('89504e470d0a1a0a0000000d49484452ffffffffffffffff0806000000', 'hex') },
  { label: 'binary lmk junk', headers: { 'content-type': 'application/lmk' }, body: Buffer.concat([Buffer.from('FLMK'), Buffer.alloc(64, 0xff)]) },
  { label: 'odd content type', headers: { 'content-type': 'application/json; charset=utf-16' }, body: '{}' },
];

const AUTHS: Record<string, string | undefined>[] = [
  {}, // the key of the test account
  { authorization: 'Basic %zz' },
  { authorization: `Basic ${Buffer.from('%zz:%').toString('base64')}` },
  { authorization: 'Token \u00ff' },
];

test('no mounted route answers 5xx to malformed input', async (t) => {
  const routes = server.app.routes;
  t.true(routes.length > 20, `the mounted routes are listed (${routes.length})`);
  const failures: string[] = [];
  let requests = 0;
  for (const route of routes) {
    const paths = concretePaths(route.url);
    // Every concrete path plainly; the first one with every body, query and credential variant.
    const cases: [string, string, Variant, Record<string, string | undefined>][] = [
      ...paths.map((p): [string, string, Variant, Record<string, string | undefined>] => [p, '', VARIANTS[0]!, AUTHS[0]!]),
      ...(route.method === 'GET' ? [] : VARIANTS.slice(1)).map((v): [string, string, Variant, Record<string, string | undefined>] => [paths[0]!, '', v, AUTHS[0]!]),
      ...AUTHS.slice(1).map((a): [string, string, Variant, Record<string, string | undefined>] => [paths[0]!, '', VARIANTS[0]!, a]),
      ...(route.method === 'GET' ? QUERIES.slice(1) : QUERIES.slice(1, 3)).map((q): [string, string, Variant, Record<string, string | undefined>] => [paths[0]!, q, VARIANTS[5]!, AUTHS[0]!]),
    ];
    for (const [path, query, variant, auth] of cases) {
      const headers: Record<string, string> = { authorization: `Token ${key}`, ...variant.headers };
      if (auth.authorization) headers.authorization = auth.authorization;
      const label = `${route.method} ${path.slice(0, 120)}${query} [${variant.label}] ${auth.authorization ?? ''}`;
      try {
        const res = await fetch(new URL(path + query, server.url), {
          method: route.method,
          headers,
          body: route.method === 'GET' ? undefined : variant.body,
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        if (res.status >= 500) failures.push(`${label} -> ${res.status} ${text.slice(0, 200)}`);
      } catch (err) {
        failures.push(`${label} -> ${(err as Error).message}`);
      }
      requests++;
    }
  }
  t.log(`${requests} requests on ${routes.length} routes`);
  t.deepEqual(failures, []);
});
