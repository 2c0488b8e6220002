import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typescriptPlugin from '@graphql-codegen/typescript';
import * as operationsPlugin from '@graphql-codegen/typescript-operations';
import { createHash } from 'node:crypto';
import { buildClientSchema, getIntrospectionQuery, Kind, parse, print, printSchema, stripIgnoredCharacters, visit, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';

/** The representative operations (dashboards, drill-downs, paging, tagging): the console reuses them. */
export const OPERATIONS_DIR = resolve(__dirname, '../../graphql/operations');
/** The client types generated from the schema for them (committed; the codegen test holds it current). */
export const GENERATED_FILE = resolve(__dirname, '../../graphql/generated/operations.ts');

/** The console's operations (one file per screen; fragments shared across files). */
export const CONSOLE_OPERATIONS_DIR = resolve(__dirname, '../../../packages/console/src/graphql/operations');
/** Their result and variable types, and each operation's text typed with them (committed, bundled). */
export const CONSOLE_GENERATED_FILE = resolve(__dirname, '../../../packages/console/src/graphql/generated.ts');
/** The console's operations as trusted documents (`{"<sha256>": "<text>"}`, GRAPHQL_TRUSTED_DOCUMENTS). */
export const CONSOLE_PERSISTED_FILE = resolve(__dirname, '../../../packages/console/src/graphql/persisted-documents.json');

export function operationDocuments(dir = OPERATIONS_DIR): { location: string; document: DocumentNode; text: string }[] {
  const base = dir === OPERATIONS_DIR ? 'graphql/operations' : 'packages/console/src/graphql/operations';
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => {
      const text = readFileSync(join(dir, f), 'utf8');
      return { location: `${base}/${f}`, document: parse(text), text };
    });
}

/** The console's operations as one document (fragments are shared between screens' files). */
export function consoleDocument(): DocumentNode {
  return { kind: Kind.DOCUMENT, definitions: operationDocuments(CONSOLE_OPERATIONS_DIR).flatMap((d) => d.document.definitions) };
}

/** Each named operation's text as sent: the operation then the fragments it uses, whitespace stripped. */
export function consoleOperationTexts(document = consoleDocument()): { name: string; kind: string; text: string }[] {
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const spreads = (node: OperationDefinitionNode | FragmentDefinitionNode) => {
    const names: string[] = [];
    visit(node, { FragmentSpread: (s) => void names.push(s.name.value) });
    return names;
  };
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((op) => {
      if (!op.name) throw new Error('every console operation is named');
      const used = new Set<string>();
      const queue = spreads(op);
      while (queue.length) {
        const name = queue.shift()!;
        if (used.has(name)) continue;
        const f = fragments.get(name);
        if (!f) throw new Error(`${op.name.value}: unknown fragment ${name}`);
        used.add(name);
        queue.push(...spreads(f));
      }
      const text = stripIgnoredCharacters([op, ...[...used].sort().map((n) => fragments.get(n)!)].map((d) => print(d)).join('\n'));
      return { name: op.name.value, kind: op.operation, text };
    });
}

const pascal = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** The console's persisted documents file: every operation by the SHA-256 of its text. */
export function consolePersistedDocuments(): string {
  const entries = consoleOperationTexts().map(({ text }) => [createHash('sha256').update(text).digest('hex'), text] as const);
  return `${JSON.stringify(Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b))), null, 2)}\n`;
}

/** The console's client: the operations' types, and each operation's text typed with them. */
export async function generateConsoleTypes(schema: GraphQLSchema): Promise<string> {
  const document = consoleDocument();
  const types = await codegen({
    filename: 'generated.ts',
    schema: parse(printSchema(schema)),
    documents: [{ location: 'packages/console/src/graphql/operations', document }],
    config: CODEGEN_CONFIG,
    // typescript-operations alone: it writes the enums and inputs the operations use (with the
    // typescript plugin too, they would be declared twice).
    plugins: [{ typescriptOperations: {} }],
    pluginMap: { typescriptOperations: operationsPlugin },
  });
  const documents = consoleOperationTexts(document).map(({ name, kind, text }) => {
    const type = `${name}${pascal(kind)}`;
    return `export const ${name}Document = ${JSON.stringify(text)} as TypedDocument<${type}, ${type}Variables>;`;
  });
  return [
    '// Generated by test/support/graphql-codegen.ts from the served schema and packages/console/src/graphql/operations/*.graphql:',
    '// npm run graphql:codegen. Do not edit.',
    types,
    '/** An operation\'s text, typed with its result and variables (what `gql` sends and resolves to). */',
    'export type TypedDocument<Result, Variables> = string & { readonly __types?: [Result, Variables] };',
    '',
    ...documents,
    '',
  ].join('\n');
}

/** The schema a server serves, introspected over HTTP as a client sees it. */
export async function introspect(server: TestServer): Promise<GraphQLSchema> {
  const { apiKey } = await server.createAccount(`codegen${Date.now()}`);
  const res = await server.call('POST', '/graphql', { key: apiKey, json: { query: getIntrospectionQuery() } });
  if (!res.json.data) throw new Error(`introspection failed: ${res.text.slice(0, 300)}`);
  return buildClientSchema(res.json.data);
}

/** The schema of a server with every built-in plugin. */
export async function servedSchema(): Promise<GraphQLSchema> {
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false });
  try {
    return await introspect(server);
  } finally {
    await server.close();
  }
}

const CODEGEN_CONFIG = { enumsAsTypes: true, avoidOptionals: false, skipTypename: true, onlyOperationTypes: true, scalars: { JSONObject: 'Record<string, unknown>', DateTimeISO: 'string' } };

/** TypeScript types of the schema's inputs and of each operation's variables and result (@graphql-codegen). */
export async function generateClientTypes(schema: GraphQLSchema): Promise<string> {
  const output = await codegen({
    filename: 'operations.ts',
    schema: parse(printSchema(schema)),
    documents: operationDocuments().map(({ location, document }) => ({ location, document })),
    config: CODEGEN_CONFIG,
    plugins: [{ typescript: {} }, { typescriptOperations: {} }],
    pluginMap: { typescript: typescriptPlugin, typescriptOperations: operationsPlugin },
  });
  return `// Generated by test/support/graphql-codegen.ts from the served schema and graphql/operations/*.graphql:\n// npm run graphql:codegen. Do not edit.\n${output}`;
}

// `node test/dist/support/graphql-codegen.js` rewrites the generated file.
if (require.main === module) {
  void (async () => {
    const schema = await servedSchema();
    const outputs: [string, string][] = [
      [GENERATED_FILE, await generateClientTypes(schema)],
      [CONSOLE_GENERATED_FILE, await generateConsoleTypes(schema)],
      [CONSOLE_PERSISTED_FILE, consolePersistedDocuments()],
    ];
    for (const [file, text] of outputs) {
      mkdirSync(resolve(file, '..'), { recursive: true });
      writeFileSync(file, text);
      console.log(`wrote ${file} (${text.length} bytes)`);
    }
    process.exit(0);
  })();
}
