import test from 'ava';
import sharp from 'sharp';
import { buildClientSchema, getIntrospectionQuery, getNamedType, isInputObjectType, isObjectType, type GraphQLField, type GraphQLSchema, type GraphQLType } from 'graphql';
import { graphqlFieldName } from '@filigrane/core';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';

// Every REST operation of the OpenAPI document has its GraphQL counterpart (a root field), and every
// filter and query parameter of a list its argument or filter field: a new route without one fails
// here. The counterparts are named below; the exceptions say why there is none.

/** `METHOD path` (without the /api/vN prefix) -> the field doing the same (a root field, or a field of an object: CrawlSession.batches). */
const COUNTERPARTS: Record<string, string> = {
  'GET /account/': 'Query.account',
  'DELETE /account/': 'Mutation.deleteAccount',
  'GET /account/settings/': 'Query.accountSettings',
  'POST /account/settings/': 'Mutation.updateAccountSettings',
  'GET /account/settings/api_key/': 'Query.accountApiKey',
  'POST /account/settings/api_key/': 'Mutation.rotateAccountApiKey',
  'GET /account/oauth/applications/': 'Query.oauthApplications',
  'POST /account/oauth/applications/': 'Mutation.createOAuthApplication',
  'GET /account/oauth/applications/{id}/': 'Query.oauthApplications',
  'DELETE /account/oauth/applications/{id}/': 'Mutation.deleteOAuthApplication',
  'PUT /account/password/': 'Mutation.changePassword',
  'GET /session/': 'Query.browserSessions',
  'GET /sessions/': 'Query.browserSessions',
  'DELETE /sessions/': 'Mutation.revokeOtherBrowserSessions',
  'DELETE /sessions/{id}/': 'Mutation.revokeBrowserSession',
  'GET /domains/blacklist/': 'Query.blacklistedDomains',
  'POST /domains/blacklist/': 'Mutation.blacklistDomain',
  'DELETE /domains/blacklist/': 'Mutation.unblacklistDomain',
  'GET /media': 'Query.mediaFolder',
  // A media (media(path)) or a folder and a page of its children (mediaFolder(path, page, hidden)).
  'GET /media/{path}': 'Query.mediaFolder',
  'PUT /media/{path}': 'Mutation.registerMedia',
  'PATCH /media/{path}': 'Mutation.updateMediaMetadata',
  'DELETE /media/{path}': 'Mutation.deleteMedia',
  'GET /matches/': 'Query.matches',
  'GET /matches/{id}/': 'Query.match',
  'PATCH /matches/{id}/': 'Mutation.updateMatch',
  'PATCH /matches/': 'Mutation.updateMatches',
  'PUT /matches/{id}/tags/{tag}/': 'Mutation.addMatchTags',
  'DELETE /matches/{id}/tags/{tag}/': 'Mutation.removeMatchTags',
  'GET /matches/histogram/': 'Query.matchHistogram',
  'POST /signed-urls/': 'Query.signedFileUrls',
  'GET /matches/web/': 'Query.v3Matches',
  'GET /matches/press/': 'Query.v3Matches',
  'GET /matches/credit/': 'Query.v3Matches',
  'GET /matches/web/{id}/': 'Query.v3Match',
  'GET /matches/press/{id}/': 'Query.v3Match',
  'GET /matches/credit/{id}/': 'Query.v3Match',
  'GET /aggregations/': 'Query.aggregationNames',
  'GET /aggregations/{aggregation}/': 'Query.aggregations',
  'GET /aggregations/{aggregation}/{id}/': 'Query.aggregation',
  'PATCH /aggregations/{aggregation}/{id}/': 'Mutation.updateAggregation',
  // One field of the object (tags, export): the object's field; written by the PATCH mutation.
  'GET /aggregations/{aggregation}/{id}/{field}/': 'Query.aggregation',
  'PUT /aggregations/{aggregation}/{id}/{field}/': 'Mutation.updateAggregation',
  'DELETE /aggregations/{aggregation}/{id}/{field}/': 'Mutation.updateAggregation',
  'POST /searches/': 'Mutation.imageSearch',
  'GET /searches/': 'Query.searches',
  'GET /searches/{id}/': 'Query.search',
  'POST /watermarking/': 'Mutation.watermarkImage',
  'GET /watermarking/': 'Query.watermarkingJobs',
  'GET /watermarking/{id}/': 'Query.watermarkingJob',
  'GET /press/issues/': 'Query.pressIssues',
  'POST /press/issues/': 'Mutation.ingestPressIssue',
  'GET /press/issues/{id}/': 'Query.pressIssue',
  'DELETE /press/issues/{id}/': 'Mutation.deletePressIssue',
  'GET /account/webhooks/': 'Query.webhookEndpoints',
  'POST /account/webhooks/': 'Mutation.createWebhookEndpoint',
  'GET /account/webhooks/{id}/': 'Query.webhookEndpoints',
  'PATCH /account/webhooks/{id}/': 'Mutation.updateWebhookEndpoint',
  'DELETE /account/webhooks/{id}/': 'Mutation.deleteWebhookEndpoint',
  'POST /account/webhooks/{id}/test/': 'Mutation.testWebhookEndpoint',
  'GET /account/webhooks/{id}/deliveries/': 'Query.webhookDeliveries',
  'GET /crawling/sessions/': 'Query.crawlSessions',
  'POST /crawling/sessions/': 'Mutation.startCrawlSession',
  'GET /crawling/sessions/{id}/': 'Query.crawlSession',
  'DELETE /crawling/sessions/{id}/': 'Mutation.deleteCrawlSession',
  'POST /crawling/sessions/{id}/crawl/': 'Mutation.crawlAgain',
  'POST /crawling/sessions/{id}/pause/': 'Mutation.pauseCrawlSession',
  'POST /crawling/sessions/{id}/resume/': 'Mutation.resumeCrawlSession',
  'GET /crawling/sessions/{id}/batches/': 'CrawlSession.batches',
  'GET /crawling/batches/': 'Query.crawlBatches',
  'GET /crawling/batches/{id}/': 'Query.crawlBatch',
  'GET /matches/{id}/review/': 'Query.matchReviews',
  'PUT /matches/{id}/review/': 'Mutation.reviewMatches',
  'GET /matches/{id}/review/history/': 'Query.matchReviewHistory',
  'GET /matches/review/': 'Query.matchReviewList',
  'POST /matches/review/': 'Mutation.reviewMatches',
  'GET /licensees/': 'Query.licensees',
  'POST /licensees/': 'Mutation.createLicensee',
  'GET /licensees/{id}/': 'Query.licensee',
  'PATCH /licensees/{id}/': 'Mutation.updateLicensee',
  'DELETE /licensees/{id}/': 'Mutation.deleteLicensee',
  'GET /cases/': 'Query.cases',
  'POST /cases/': 'Mutation.createCase',
  'GET /cases/{id}/': 'Query.case',
  'POST /cases/{id}/transitions/': 'Mutation.transitionCase',
  'POST /cases/{id}/matches/': 'Mutation.updateCaseMatches',
  'DELETE /cases/{id}/matches/{matchId}/': 'Mutation.updateCaseMatches',
  'POST /cases/{id}/evidence/': 'Mutation.attachCaseEvidence',
  'POST /cases/{id}/notices/': 'Mutation.createTakedownNotice',
  'POST /cases/{id}/notices/{noticeId}/send/': 'Mutation.sendTakedownNotice',
  'POST /cases/{id}/notices/{noticeId}/sent/': 'Mutation.recordTakedownNoticeSent',
  'GET /cases/settings/': 'Query.caseSettings',
  'PATCH /cases/settings/': 'Mutation.updateCaseSettings',
  'PATCH /cases/{id}/': 'Mutation.updateCase',
  'DELETE /cases/{id}/': 'Mutation.deleteCase',
  'GET /cases/{id}/notices/': 'Query.takedownNotices',
  'GET /cases/{id}/notices/{noticeId}/': 'Query.takedownNotice',
  'POST /evidence/': 'Mutation.captureEvidence',
  'GET /evidence/': 'Query.evidencePacks',
  'GET /evidence/keys/': 'Query.evidenceKeys',
  'GET /evidence/settings/': 'Query.evidenceSettings',
  'PATCH /evidence/settings/': 'Mutation.updateEvidenceSettings',
  'GET /evidence/{id}/': 'Query.evidencePack',
};

/** Operations without a GraphQL counterpart, and why. */
const EXCEPTIONS: Record<string, string> = {
  'GET /schema/': 'the OpenAPI document itself (GraphQL has introspection)',
  'GET /': 'the console web app (HTML)',
  'GET /console/{asset}': 'the console web app\'s files',
  'GET /docs/': 'the API documentation page',
  'GET /docs/{asset}': 'the API documentation page',
  'GET /graphql-explorer/{asset}': 'the GraphQL explorer\'s files (GraphiQL)',
  'POST /o/token/': 'OAuth 2 token endpoint (RFC 6749): a credentials exchange, not a resource',
  'POST /session/': 'signing in sets an HttpOnly cookie: an HTTP exchange a GraphQL result cannot carry',
  'DELETE /session/': 'signing out clears the cookie (an HTTP exchange)',
  'GET /account/download/': 'software downloads: files',
  'GET /account/download/public_key.der': 'a file',
  'GET /account/download/software/{name}': 'a file',
  'GET /media-files/{id}/{file}': 'a file (objects give its URL: thumbnail, image)',
  'GET /watermarking/{id}/{asset}': 'a file (the job gives its URLs)',
  'GET /press/issues/{id}/pages/{page}/': 'a rendered page: a file',
  'GET /press/issues/{id}/images/{md5}': 'an image: a file',
  'GET /crawling/batches/{id}/{file}': 'a batch file (the batch gives its URLs)',
  'GET /cases/{id}/notices/{noticeId}/pdf/': 'a file',
  'GET /cases/{id}/notices/{noticeId}/text/': 'a file',
  'GET /evidence/{id}/download': 'a file',
  'POST /graphql': 'GraphQL itself',
  'GET /graphql': 'GraphQL itself',
};

/** Query parameters that are paging, format or route options, not filters (GraphQL has its own paging). */
const NOT_FILTERS = new Set(['page', 'page_size', 'format', 'cursor', 'query']);

let server: TestServer;
let alice: TestAccount;
let doc: { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; 'x-filters'?: Record<string, { operators: string[] }> }>> };
let schema: GraphQLSchema;

test.before(async () => {
  server = await startTestServer({ plugins: defaultPlugins(), workers: false });
  alice = await server.createAccount('parity');
  doc = (await server.call('GET', '/api/schema/')).json;
  const introspection = await alice.call('POST', '/graphql', { json: { query: getIntrospectionQuery() } });
  if (!introspection.json.data) throw new Error(introspection.text.slice(0, 500));
  schema = buildClientSchema(introspection.json.data);
});
test.after.always(async () => server?.close());

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path.replace(/^\/api(\/v\d+)?/, '')}`, op })),
  );

function rootField(name: string): GraphQLField<unknown, unknown> | undefined {
  const [typeName, field] = name.split('.') as [string, string];
  const type = schema.getType(typeName);
  return type && isObjectType(type) ? type.getFields()[field] : undefined;
}

const OPERATOR_NAMES: Record<string, string> = { eq: 'equals', ne: 'not', in: 'in', startswith: 'startsWith', isnull: 'isNull', gt: 'gt', gte: 'gte', lt: 'lt', lte: 'lte' };

test('every REST operation of the OpenAPI document has a GraphQL counterpart (or a stated reason)', (t) => {
  const missing: string[] = [];
  for (const { key } of operations()) {
    if (EXCEPTIONS[key]) continue;
    const counterpart = COUNTERPARTS[key];
    if (!counterpart) missing.push(`${key}: no GraphQL counterpart named (add one, or an exception with its reason)`);
    else if (!rootField(counterpart)) missing.push(`${key}: ${counterpart} is not in the schema`);
  }
  t.deepEqual(missing, []);
  // The lists name only what exists: a removed route leaves no stale entry behind.
  const keys = new Set(operations().map((o) => o.key));
  t.deepEqual(Object.keys({ ...COUNTERPARTS, ...EXCEPTIONS }).filter((k) => !keys.has(k)), []);
});

test('every REST filter, with each of its operators, and every query parameter has its GraphQL argument or filter field', async (t) => {
  const missing: string[] = [];
  let checked = 0;
  for (const { key, op } of operations()) {
    const counterpart = COUNTERPARTS[key];
    if (!counterpart) continue;
    const field = rootField(counterpart)!;
    const filterType = getNamedType(field.args.find((a) => a.name === 'filter')?.type);
    const filterFields = filterType && isInputObjectType(filterType) ? filterType.getFields() : {};
    for (const [name, { operators }] of Object.entries(op['x-filters'] ?? {})) {
      checked++;
      const gql = filterFields[graphqlFieldName(name)];
      if (!gql) {
        missing.push(`${key} filter ${name}: no ${counterpart}(filter: { ${graphqlFieldName(name)} })`);
        continue;
      }
      const ops = getNamedType(gql.type);
      const have = isInputObjectType(ops) ? Object.keys(ops.getFields()) : [];
      for (const o of operators) if (!have.includes(OPERATOR_NAMES[o]!)) missing.push(`${key} filter ${name}: no operator ${OPERATOR_NAMES[o]}`);
    }
    for (const p of op.parameters ?? []) {
      if (p.in !== 'query' || NOT_FILTERS.has(p.name)) continue;
      checked++;
      // `ctime_lt` is the ctime range; any other parameter is an argument or a filter field of its own name.
      const base = p.name.replace(/_(lt|lte|gt|gte)$/, '');
      const gql = graphqlFieldName(base);
      if (!field.args.some((a) => a.name === gql || a.name === graphqlFieldName(p.name)) && !filterFields[gql]) missing.push(`${key} ?${p.name}: no argument or filter field ${gql} on ${counterpart}`);
    }
  }
  t.deepEqual(missing, []);
  t.true(checked > 40, `${checked} filters and parameters checked`);
  // Filters other plugins contribute to matches (MATCH_FILTERS, not in the OpenAPI document) are typed too.
  const matchFilter = schema.getType('MatchFilter');
  t.true(isInputObjectType(matchFilter) && 'reviewState' in matchFilter.getFields(), 'MatchFilter.reviewState');
  const byState = await alice.call('POST', '/graphql', { json: { query: '{ matches(filter: { reviewState: { in: ["new", "unsure"] } }) { count } }' } });
  t.is(byState.json.data?.matches?.count, 0, byState.text);
});

test('the same isolation as REST: account B reads none of account A\'s objects through GraphQL', async (t) => {
  const bob = await server.createAccount('parity-b');
  await alice.call('POST', '/api/v3/crawling/sessions/', { json: { url: 'http://127.0.0.1:9/parity/' } });
  const aliceView = (await alice.call('POST', '/graphql', { json: { query: '{ crawlSessions { nodes { id } } }' } })).json.data.crawlSessions.nodes;
  t.is(aliceView.length, 1);
  const id = aliceView[0].id;
  const reads = await bob.call('POST', '/graphql', {
    json: { query: `{ crawlSessions { nodes { id } } crawlBatches { nodes { id } } crawlSession(id: ${id}) { id } matches { count } v3Matches(kind: "web") { count } aggregations(name: "group-path") { count } media(path: "/parity") { path } }` },
  });
  t.deepEqual(reads.json.data.crawlSessions.nodes, []);
  t.deepEqual(reads.json.data.crawlBatches.nodes, []);
  t.is(reads.json.data.crawlSession, null);
  t.is(reads.json.data.matches.count, 0);
  t.is(reads.json.data.aggregations.count, 0);
  t.is(reads.json.data.media, null);
  const codes = Object.fromEntries(reads.json.errors.map((e: { path: string[]; extensions: { code: string } }) => [e.path[0], e.extensions.code]));
  t.deepEqual(codes, { crawlSession: 'NOT_FOUND', media: 'FORBIDDEN' });
  const writes = await bob.call('POST', '/graphql', { json: { query: `mutation { pauseCrawlSession(id: ${id}) { id } deleteCrawlSession(id: ${id}) }` } });
  t.deepEqual(writes.json.errors.map((e: { extensions: { code: string } }) => e.extensions.code), ['NOT_FOUND', 'NOT_FOUND']);
  // Media: another home is forbidden to delete; the owner deletes through GraphQL as through REST.
  const png = await sharp({ create: { width: 48, height: 40, channels: 3, background: '#336699' } }).png().toBuffer();
  t.is((await alice.call('PUT', '/api/v4/media/parity/p.png', { json: { url: `data:image/png;base64,${png.toString('base64')}` } })).status, 201);
  const bobDelete = await bob.call('POST', '/graphql', { json: { query: 'mutation { deleteMedia(path: "/parity/p.png") }' } });
  t.is(bobDelete.json.errors[0].extensions.code, 'FORBIDDEN', bobDelete.text);
  const aliceDelete = await alice.call('POST', '/graphql', { json: { query: 'mutation { deleteMedia(path: "/parity/p.png") }' } });
  t.true(aliceDelete.json.data.deleteMedia, aliceDelete.text);
  t.is((await alice.call('GET', '/api/v4/media/parity/p.png')).status, 404);
  t.is((await alice.call('GET', `/api/v3/crawling/sessions/${id}/`)).status, 200, 'still there');
});

test('typed objects everywhere: a JSON scalar only holds user metadata', (t) => {
  const json = new Set(['JSON', 'JSONObject']);
  const found: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInputObjectType(type))) continue;
    for (const field of Object.values(type.getFields())) {
      if (json.has(getNamedType(field.type as GraphQLType).name)) found.push(`${type.name}.${field.name}`);
      for (const arg of 'args' in field ? field.args : []) if (json.has(getNamedType(arg.type as GraphQLType).name)) found.push(`${type.name}.${field.name}(${arg.name})`);
    }
  }
  t.true(found.length > 0, 'user metadata is found (the check looks at the right types)');
  t.deepEqual(found.filter((f) => !/\b(metadata|userMetadata)\)?$/.test(f)), [], found.join(', '));
});

/** Every webhook event type -> the subscription delivering it (plugins contribute both). */
const SUBSCRIPTIONS: Record<string, string> = {
  'match.created': 'matchEvents',
  'match.updated': 'matchEvents',
  'crawl.batch.created': 'crawlProgress',
  'search.completed': 'jobFinished',
  'watermarking.completed': 'jobFinished',
  'press.issue.processed': 'jobFinished',
  'match.reviewed': 'matchReviewed',
  'case.opened': 'caseEvents',
  'case.updated': 'caseEvents',
  'evidence.captured': 'evidenceCaptured',
};

test('every event a webhook can receive has its GraphQL subscription', async (t) => {
  // The webhooks plugin names every known type (its own and the ones plugins contribute) when refusing one.
  const refused = await alice.call('POST', '/api/v4/account/webhooks/', { json: { url: 'https://hooks.example.com/x', events: ['no.such.event'] } });
  t.is(refused.status, 400, refused.text);
  const known = /\(known: ([^)]*)\)/.exec(refused.text)?.[1]?.split(', ') ?? [];
  t.true(known.length >= Object.keys(SUBSCRIPTIONS).length, refused.text);
  const fields = schema.getSubscriptionType()?.getFields() ?? {};
  const missing = known.filter((type) => !SUBSCRIPTIONS[type] || !fields[SUBSCRIPTIONS[type]!]);
  t.deepEqual(missing, [], 'add a subscription for these event types (and name it in SUBSCRIPTIONS)');
});

/**
 * Fields of the REST answers that GraphQL names otherwise: `url` (a REST object's own address: the graph
 * identifies objects by id) everywhere; per GraphQL type, REST name -> GraphQL field ('' flattens a REST
 * sub-object into the type itself).
 */
const FIELD_NAMES: Record<string, Record<string, string>> = {
  EvidencePack: { matches: 'matchIds', created: 'createdAt', completed: 'completedAt', download: 'downloadUrl', contents: '' },
  EvidenceKey: { created: 'createdAt' },
  TakedownNotice: { case: 'caseId', pdf: 'pdfUrl', text: 'textUrl' },
};

/** Where the counterpart answers something else than REST: the type to compare REST's answer with. */
const RESULT_TYPES: Record<string, string> = {
  // reviewMatches answers what it changed (counts); the review as set is read back with matchReviews.
  'PUT /matches/{id}/review/': 'MatchReview',
};

/** The REST operations of the rights features (review, licensees, evidence, cases) whose answers are objects. */
const RIGHTS_READS = Object.keys(COUNTERPARTS).filter((k) => /^(GET|POST|PUT|PATCH) \/(matches\/(\{id\}\/)?review|licensees|evidence|cases)\//.test(k));

test('the rights features: every field of a REST answer is a field of its GraphQL type (same name in camelCase)', (t) => {
  type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[] };
  const objectOf = (s: Schema | undefined): Record<string, Schema> | null => {
    if (!s) return null;
    if (s.anyOf) return objectOf(s.anyOf.find((x) => x.type !== 'null'));
    if (s.type === 'array') return objectOf(s.items);
    return s.properties ?? null;
  };
  const missing: string[] = [];
  const compare = (rest: Record<string, Schema>, typeName: string, where: string) => {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) return void missing.push(`${where}: ${typeName} is not an object type`);
    const fields = type.getFields();
    for (const [name, sub] of Object.entries(rest)) {
      if (name === 'url') continue;
      const alias = FIELD_NAMES[typeName]?.[name];
      const sub2 = objectOf(sub);
      if (alias === '') {
        if (sub2) compare(sub2, typeName, `${where}.${name}`);
        continue;
      }
      const field = fields[alias ?? graphqlFieldName(name)];
      if (!field) missing.push(`${where}.${name}: no ${typeName}.${alias ?? graphqlFieldName(name)}`);
      else if (sub2 && Object.keys(sub2).length) compare(sub2, getNamedType(field.type).name, `${where}.${name}`);
    }
  };
  let checked = 0;
  for (const { key, op } of operations()) {
    if (!RIGHTS_READS.includes(key)) continue;
    const responses = (op as { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }).responses ?? {};
    const body = (responses['200'] ?? responses['201'] ?? responses['202'])?.content?.['application/json']?.schema;
    let rest = objectOf(body);
    if (!rest) continue;
    if (rest.results) rest = objectOf(rest.results)!;
    let type = RESULT_TYPES[key] ? schema.getType(RESULT_TYPES[key])! : getNamedType(rootField(COUNTERPARTS[key]!)!.type);
    // A page type: its results are the objects.
    if (isObjectType(type) && type.getFields().results && !rest.results) type = getNamedType(type.getFields().results!.type);
    compare(rest, type.name, key);
    checked++;
  }
  t.true(checked >= 12, `${checked} answers compared`);
  t.deepEqual(missing, []);
});
