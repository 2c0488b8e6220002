import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { validate, type GraphQLSchema } from 'graphql';
import { startTestServer, type TestAccount, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import {
  CONSOLE_GENERATED_FILE,
  CONSOLE_OPERATIONS_DIR,
  CONSOLE_PERSISTED_FILE,
  consoleDocument,
  consoleOperationTexts,
  consolePersistedDocuments,
  GENERATED_FILE,
  generateClientTypes,
  generateConsoleTypes,
  introspect,
  operationDocuments,
} from '../support/graphql-codegen.js';

// Client types generated from the schema for the representative operations (graphql/operations/,
// which the console reuses): current, compiling with tsc, and every operation valid and running.

let server: TestServer;
let alice: TestAccount;
let schema: GraphQLSchema;

test.before(async () => {
  server = await startTestServer({ plugins: defaultPlugins(), workers: false });
  alice = await server.createAccount('codegen-user');
  schema = await introspect(server);
});
test.after.always(async () => server?.close());

test('the committed client types are what the schema and the operations generate (npm run graphql:codegen)', async (t) => {
  const generated = await generateClientTypes(schema);
  t.is(readFileSync(GENERATED_FILE, 'utf8'), generated, 'stale: run npm run graphql:codegen and commit the file');
});

test("the console's generated client and trusted documents are current, and every console operation validates", async (t) => {
  t.deepEqual(validate(schema, consoleDocument()).map((e) => e.message), [], 'packages/console/src/graphql/operations');
  t.is(readFileSync(CONSOLE_GENERATED_FILE, 'utf8'), await generateConsoleTypes(schema), 'stale: run npm run graphql:codegen and commit the file');
  t.is(readFileSync(CONSOLE_PERSISTED_FILE, 'utf8'), consolePersistedDocuments(), 'stale: run npm run graphql:codegen and commit the file');
  // Static documents only: no operation is assembled in the console's code.
  const operations = consoleOperationTexts();
  t.true(operations.length >= 40, `${operations.length} operations`);
  t.true(operationDocuments(CONSOLE_OPERATIONS_DIR).every((d) => d.document.definitions.every((def) => def.kind !== 'OperationDefinition' || !!def.name)));
});

test("the console's persisted documents as GRAPHQL_TRUSTED_DOCUMENTS: the console's texts run, anything else is refused", async (t) => {
  const locked = await startTestServer({ plugins: defaultPlugins(), workers: false, env: { GRAPHQL_TRUSTED_DOCUMENTS: CONSOLE_PERSISTED_FILE } });
  try {
    const bob = await locked.createAccount('console-only');
    const me = consoleOperationTexts().find((o) => o.name === 'Me')!;
    const res = await bob.call('POST', '/graphql', { json: { query: me.text } });
    t.is(res.json.errors, undefined, res.text.slice(0, 300));
    t.is(res.json.data.account.username, 'console-only');
    const other = await bob.call('POST', '/graphql', { json: { query: '{ account { username email } }' } });
    t.regex(JSON.stringify(other.json), /untrusted_document/);
  } finally {
    await locked.close();
  }
});

const tsc = resolve(__dirname, '../../../node_modules/typescript/bin/tsc');

async function compiles(source: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'filigrane-codegen-'));
  writeFileSync(join(dir, 'operations.ts'), readFileSync(GENERATED_FILE, 'utf8'));
  writeFileSync(join(dir, 'use.ts'), source);
  try {
    await promisify(execFile)(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', join(dir, 'use.ts')], { timeout: 60_000 });
    return '';
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

test('the generated types compile with tsc and type the answers (a wrong field does not compile)', async (t) => {
  const ok = await compiles(`import type { DashboardQuery, DashboardQueryVariables, SiteReportQuery } from './operations.js';
const vars: DashboardQueryVariables = { since: '2026-11-01' };
declare const answer: DashboardQuery;
const domains: (string | null)[] = answer.recent?.results.map((m) => m.site?.domain ?? null) ?? [];
const batch: number | undefined = answer.crawlSessions?.nodes[0]?.latestBatch?.crawlCycle;
declare const report: SiteReportQuery;
const counts: number[] = report.aggregations?.results.map((a) => a.matchCount) ?? [];
export { vars, domains, batch, counts };
`);
  t.is(ok, '');
  const wrong = await compiles(`import type { DashboardQuery } from './operations.js';
declare const answer: DashboardQuery;
export const x: string = answer.recent!.results[0]!.site_domain;
`);
  t.regex(wrong, /site_domain/);
});

test('every representative operation is valid against the schema and runs without input errors', async (t) => {
  const variables: Record<string, Record<string, unknown>> = {
    Dashboard: { since: '2026-11-01' },
    MediaMatches: { mediaPath: '/codegen-user/x.png', excludeDomains: ['a.fr'] },
    WebMatch: { id: '1' },
    SiteReport: { minMatches: 2, notDomain: 'a.fr' },
    TagGroup: { id: '1', tags: ['x'] },
    CrawlStatus: { since: '2026-11-01' },
    PressIssues: {},
    TagMatch: { id: '1', tags: ['x'] },
  };
  let operations = 0;
  for (const { location, document, text } of operationDocuments()) {
    t.deepEqual(validate(schema, document).map((e) => e.message), [], location);
    for (const def of document.definitions) {
      if (def.kind !== 'OperationDefinition' || !def.name) continue;
      operations++;
      const res = await alice.call('POST', '/graphql', { json: { query: text, operationName: def.name.value, variables: variables[def.name.value] } });
      const codes = (res.json.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
      // Objects that do not exist (id 1) are NOT_FOUND, press issues need press:ingest: the operations themselves are right.
      t.true(codes.every((c: string) => c === 'NOT_FOUND' || c === 'FORBIDDEN'), `${def.name.value}: ${res.text.slice(0, 300)}`);
      t.truthy(res.json.data, def.name.value);
    }
  }
  t.is(operations, Object.keys(variables).length);
});
