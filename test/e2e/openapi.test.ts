import test from 'ava';
import { compileErrors, validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import sharp from 'sharp';
import { PDFDocument } from 'pdf-lib';
import type { DataSource } from 'typeorm';
import { TOKENS } from '@filigrane/core';
import { syntheticPhoto } from '@filigrane/vision';
import { defaultPlugins } from '@filigrane/gateway';
import { configuredPlugins, mountedRoutes, openApiPath } from '@filigrane/server';
import { startTestServer, type CallResult, type TestServer } from '@filigrane/testing';

let server: TestServer;
let doc: any; // eslint-disable-line @typescript-eslint/no-explicit-any

// An independent JSON Schema validator (OpenAPI 3.1 schemas are JSON Schema 2020-12).
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'openapi', components: { schemas: {} } });

test.before(async () => {
  // Whatever plugins are mounted (built-in, configured third-party) must be described.
  const env = { FILIGRANE_PLUGINS: './examples/feed-source', FETCH_ALLOW_HOSTS: '127.0.0.1' };
  server = await startTestServer({ plugins: [...defaultPlugins(), ...(await configuredPlugins(env))], env, workers: false });
  doc = (await server.call('GET', '/api/schema/')).json;
});
test.after.always(async () => server?.close());

test('the document is valid OpenAPI 3.1 for an independent validator; YAML says the same', async (t) => {
  t.is(doc.openapi, '3.1.0');
  const result = await validate(structuredClone(doc));
  t.true(result.valid, result.valid ? '' : compileErrors(result));
  const yaml = await server.call('GET', '/api/schema/?format=yaml');
  t.is(yaml.status, 200);
  t.regex(yaml.headers.get('content-type') ?? '', /^application\/yaml/);
  t.deepEqual(parseYaml(yaml.text), doc);
  t.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['ApiKey', 'OAuth2']);
  t.is((await server.call('GET', '/api/schema/?format=xml')).status, 406);
});

test('every route Fastify mounted is in the document, with the error body on every operation', async (t) => {
  // Derived from what is really mounted: each URL Fastify registered, and the methods it really
  // serves (the Allow header of OPTIONS; Apollo's /graphql: its registered methods).
  const mounted = mountedRoutes(server.app.http!).filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
  const urls = [...new Set(mounted.map((r) => r.url))];
  t.true(urls.length > 30, `${urls.length} URLs mounted`);
  const missing: string[] = [];
  for (const url of urls) {
    const concrete = url.replace(/:[A-Za-z0-9_]+/g, '1').replace(/\*$/, 'x');
    const allow = (await server.call('OPTIONS', concrete)).headers.get('allow');
    const methods = allow ? allow.split(', ').filter((m) => m !== 'HEAD' && m !== 'OPTIONS') : mounted.filter((r) => r.url === url).map((r) => r.method);
    const described = doc.paths[openApiPath(url).path] ?? {};
    for (const method of methods) {
      const op = described[method.toLowerCase()];
      if (!op) missing.push(`${method} ${url}`);
      else if (op.responses['4XX']?.content?.['application/json']?.schema?.$ref !== '#/components/schemas/Error') missing.push(`${method} ${url} (no error body)`);
    }
    const extra = Object.keys(described).filter((m) => !methods.includes(m.toUpperCase()));
    if (extra.length) missing.push(`${url}: documented but not served: ${extra.join(', ')}`);
  }
  t.deepEqual(missing, []);
  t.truthy(doc.paths['/api/v4/partner-feed/sightings/']?.post, 'the configured third-party plugin is described');
  t.deepEqual(doc.paths['/api/v4/account/webhooks/{id}/deliveries/'].get.parameters.map((p: { name: string }) => p.name), ['id', 'status']);
});

/** The operation's schema for this status (exact, then NXX, then default), as a compiled validator. */
function schemaFor(method: string, template: string, status: number) {
  const op = doc.paths[template]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${template} is not in the document`);
  const response = op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
  if (!response) throw new Error(`${method} ${template} documents no ${status}`);
  const schema = response.content?.['application/json']?.schema;
  return schema === undefined ? null : ajv.compile({ $defs: doc.components.schemas, ...JSON.parse(JSON.stringify(schema).replace(/#\/components\/schemas\//g, '#/$defs/')) });
}

function conforms(t: import('ava').ExecutionContext, method: string, template: string, res: CallResult) {
  const check = schemaFor(method, template, res.status);
  if (check === null) return t.is(res.text, '', `${method} ${template} ${res.status} has no body`);
  const valid = check(res.json);
  t.true(valid, `${method} ${template} ${res.status}: ${ajv.errorsText(check.errors)}\n${res.text.slice(0, 400)}`);
}

test('real responses validate against their documented schemas', async (t) => {
  const { apiKey } = await server.createAccount('described');
  const key = apiKey;
  const calls: [string, string, string, Parameters<TestServer['call']>[2]?][] = [
    ['GET', '/api/v4/account/', '/api/v4/account/'],
    ['GET', '/api/v4/account/settings/', '/api/v4/account/settings/'],
    ['GET', '/api/v4/account/download/', '/api/v4/account/download/'],
    ['POST', '/api/v4/domains/blacklist/', '/api/v4/domains/blacklist/', { json: { url: 'copycat.example.com' } }],
    ['GET', '/api/v4/domains/blacklist/', '/api/v4/domains/blacklist/'],
    ['POST', '/api/v3/account/oauth/applications/', '/api/v3/account/oauth/applications/', { json: { name: 'described app' } }],
    ['GET', '/api/v3/account/oauth/applications/', '/api/v3/account/oauth/applications/'],
    ['POST', '/api/v4/account/webhooks/', '/api/v4/account/webhooks/', { json: { url: 'https://hooks.example.com/x', events: ['match.created'] } }],
    ['GET', '/api/v4/account/webhooks/', '/api/v4/account/webhooks/'],
    ['GET', '/api/v4/account/webhooks/1/', '/api/v4/account/webhooks/{id}/'],
    ['PATCH', '/api/v4/account/webhooks/1/', '/api/v4/account/webhooks/{id}/', { json: { description: 'x' } }],
    ['GET', '/api/v4/account/webhooks/1/deliveries/', '/api/v4/account/webhooks/{id}/deliveries/'],
    ['GET', '/api/v4/matches/', '/api/v4/matches/'],
    ['GET', '/api/v3/matches/web/', '/api/v3/matches/web/'],
    ['GET', '/api/v3/matches/press/', '/api/v3/matches/press/'],
    ['GET', '/api/v3/matches/credit/', '/api/v3/matches/credit/'],
    ['GET', '/api/v4/searches/', '/api/v4/searches/'],
    ['POST', '/api/v4/searches/', '/api/v4/searches/', { json: { filename: 'photo.png' } }],
    ['POST', '/api/v3/crawling/sessions/', '/api/v3/crawling/sessions/', { json: { url: 'http://127.0.0.1:9/', search: false } }],
    ['GET', '/api/v3/crawling/sessions/', '/api/v3/crawling/sessions/'],
    ['GET', '/api/v3/crawling/batches/', '/api/v3/crawling/batches/'],
    ['GET', '/api/v3/aggregations/', '/api/v3/aggregations/'],
    ['GET', '/api/v3/aggregations/group-path/', '/api/v3/aggregations/{aggregation}/'],
    ['GET', '/api/v4/watermarking/', '/api/v4/watermarking/'],
    // Errors: the error body, whatever the route.
    ['GET', '/api/v4/account/webhooks/999/', '/api/v4/account/webhooks/{id}/'],
    ['POST', '/api/v4/account/webhooks/', '/api/v4/account/webhooks/', { json: { url: 'nope' } }],
    ['GET', '/api/v4/account/webhooks/?page=0', '/api/v4/account/webhooks/'],
    ['DELETE', '/api/v4/account/webhooks/1/', '/api/v4/account/webhooks/{id}/'],
  ];
  for (const [method, path, template, options] of calls) {
    const res = await server.call(method, path, { key, ...options });
    t.true(res.status < 500, `${method} ${path}: ${res.status}`);
    conforms(t, method, template, res);
  }
  const app = (await server.call('POST', '/api/v3/account/oauth/applications/', { key, json: { name: 'token app' } })).json;
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const token = await server.call('POST', '/o/token/', { headers: form, body: `grant_type=client_credentials&client_id=${app.client_id}&client_secret=${app.client_secret}` });
  t.is(token.status, 200);
  conforms(t, 'POST', '/o/token/', token);
  conforms(t, 'GET', '/api/v3/account/oauth/applications/{id}/', await server.call('GET', `/api/v3/account/oauth/applications/${app.id}/`, { bearer: token.json.access_token }));
  conforms(t, 'POST', '/o/token/', await server.call('POST', '/o/token/', { headers: form, body: 'grant_type=password' }));
  const anonymous = await server.call('GET', '/api/v4/account/');
  t.is(anonymous.status, 401);
  conforms(t, 'GET', '/api/v4/account/', anonymous);
});

test('media, searches, matches, crawling and aggregations answer with real data as documented', async (t) => {
  const { apiKey: key, username, id: accountId } = await server.createAccount('tracked');
  // Press issues need an operator's permission (granted before the first request: principals are cached).
  await server.app.container.get<DataSource>(TOKENS.DataSource).query(`INSERT INTO account_permissions (account_id, permission) VALUES ($1, 'press:ingest')`, [accountId]);
  const photo = await sharp(await syntheticPhoto(11, 400, 300)).jpeg({ quality: 92 }).toBuffer();
  const check = async (method: string, path: string, template: string, options: Parameters<TestServer['call']>[2] = {}) => {
    const res = await server.call(method, path, { key, ...options });
    t.true(res.status < 300, `${method} ${path}: ${res.status} ${res.text.slice(0, 200)}`);
    conforms(t, method, template, res);
    return res;
  };
  await check('PUT', `/api/v4/media/${username}/a/photo.jpg`, '/api/v4/media/{path}', { body: photo, headers: { 'content-type': 'image/jpeg' } });
  await check('GET', `/api/v4/media/${username}/a/photo.jpg`, '/api/v4/media/{path}');
  await check('GET', `/api/v4/media/${username}/a`, '/api/v4/media/{path}');
  await check('GET', '/api/v4/media', '/api/v4/media');
  await check('PATCH', `/api/v4/media/${username}/a/photo.jpg`, '/api/v4/media/{path}', { json: { metadata: { 'user.campaign': 'x' } } });
  const query = await sharp(photo).resize(300).jpeg({ quality: 70 }).toBuffer();
  const found = await check('POST', '/api/v4/searches/', '/api/v4/searches/', { json: { file: `data:image/jpeg;base64,${query.toString('base64')}` } });
  t.is(found.json.matches.length, 1);
  await check('POST', '/api/v4/searches/', '/api/v4/searches/', { json: { filename: 'photo.jpg' } });

  // A web match and a credit match through the configured tracking source.
  const copy = await sharp(photo).resize(320).jpeg({ quality: 80 }).toBuffer();
  const sighting = (json: object) => server.call('POST', '/api/v4/partner-feed/sightings/', { key, json: { image: `data:image/jpeg;base64,${copy.toString('base64')}`, ...json } });
  t.is((await sighting({ page_url: 'http://127.0.0.1/news', image_url: 'http://127.0.0.1/news/a.jpg', session_id: 3 })).status, 201);
  t.is((await sighting({ page_url: 'https://mag.example.com/a', image_url: 'https://mag.example.com/a.jpg', credit: `Photo: ${username}` })).status, 201);
  const v4 = await check('GET', '/api/v4/matches/', '/api/v4/matches/');
  t.true(v4.json.results.length >= 1);
  await check('GET', `/api/v4/matches/${v4.json.results[0].id}/`, '/api/v4/matches/{id}/');
  await check('PATCH', `/api/v4/matches/${v4.json.results[0].id}/`, '/api/v4/matches/{id}/', { json: { tags: ['legal'] } });
  for (const kind of ['web', 'credit']) {
    const list = await check('GET', `/api/v3/matches/${kind}/`, `/api/v3/matches/${kind}/`);
    t.is(list.json.results.length, kind === 'web' ? 2 : 1, kind);
    await check('GET', `/api/v3/matches/${kind}/${list.json.results[0].id}/`, `/api/v3/matches/${kind}/{id}/`);
  }
  for (const name of ['group-path', 'group-site-path', 'group-site-path-pageurl']) {
    const list = await check('GET', `/api/v3/aggregations/${name}/`, '/api/v3/aggregations/{aggregation}/');
    t.true(list.json.results.length >= 1, name);
    await check('GET', `/api/v3/aggregations/${name}/${list.json.results[0]._id}/`, '/api/v3/aggregations/{aggregation}/{id}/');
    await check('PATCH', `/api/v3/aggregations/${name}/${list.json.results[0]._id}/`, '/api/v3/aggregations/{aggregation}/{id}/', { json: { tags: ['x'] } });
  }

  const session = await check('POST', '/api/v3/crawling/sessions/', '/api/v3/crawling/sessions/', { json: { url: 'http://127.0.0.1:9/', search: false } });
  await check('GET', `/api/v3/crawling/sessions/${session.json.id}/`, '/api/v3/crawling/sessions/{id}/');
  await check('GET', '/api/v3/crawling/sessions/', '/api/v3/crawling/sessions/');
  await check('GET', `/api/v3/crawling/sessions/${session.json.id}/batches/`, '/api/v3/crawling/sessions/{id}/batches/');
  await check('GET', '/api/v3/crawling/batches/', '/api/v3/crawling/batches/');
  await check('DELETE', `/api/v4/media/${username}/a/photo.jpg`, '/api/v4/media/{path}');

  // Watermarking (asynchronous: the status object) and press issues (an operator's permission).
  const job = await check('POST', '/api/v4/watermarking/?sync=false', '/api/v4/watermarking/', { body: photo, headers: { 'content-type': 'image/jpeg' } });
  await check('GET', `/api/v4/watermarking/${job.json.id}/`, '/api/v4/watermarking/{id}/');
  await check('GET', '/api/v4/watermarking/', '/api/v4/watermarking/');
  const pdf = await PDFDocument.create();
  pdf.addPage([200, 200]).drawText('Filigrane', { x: 20, y: 100 });
  const issue = await check('POST', '/api/v4/press/issues/', '/api/v4/press/issues/', { json: { url: `data:application/pdf;base64,${Buffer.from(await pdf.save()).toString('base64')}`, name: 'Le Monde', date: '2026-11-20' } });
  await check('GET', `/api/v4/press/issues/${issue.json.id}/`, '/api/v4/press/issues/{id}/');
  await check('GET', '/api/v4/press/issues/', '/api/v4/press/issues/');
});

test('the documentation page works offline: the page and every asset it references are served locally', async (t) => {
  const page = await server.call('GET', '/api/docs/');
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const refs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  t.true(refs.length >= 3);
  for (const ref of refs) {
    t.true(ref.startsWith('/api/'), `${ref} is local`);
    const asset = await server.call('GET', ref);
    t.is(asset.status, 200, ref);
    t.true(asset.text.length > 0);
  }
  t.regex((await server.call('GET', '/api/docs/init.js')).text, /url: '\/api\/schema\/'/);
  t.is((await server.call('GET', '/api/docs/..%2F..%2Fpackage.json')).status, 404);
  for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) t.is((await server.call('GET', `/api/docs/${name}`)).status, 404, `${name} is no asset (was a 500)`);
});
