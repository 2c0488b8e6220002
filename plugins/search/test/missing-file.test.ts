import test from 'ava';
import { TOKENS, type BlobStore } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { syntheticPhoto } from '@filigrane/vision';
import { SearchService } from '../src/index.js';

// No job workers: the test deletes the stored query image between the request and the job.
let server: TestServer;
test.before(async () => {
  server = await startTestServer({ plugins: ['search'], workers: false });
});
test.after.always(async () => server?.close());

test('an asynchronous search whose stored query image is gone fails with file_missing (a server fault), not a client error', async (t) => {
  const { apiKey } = await server.createAccount('lost');
  const image = await syntheticPhoto(5);
  const res = await server.call('POST', '/api/v4/searches/', { key: apiKey, json: { file: `data:image/png;base64,${image.toString('base64')}`, sync: false } });
  t.is(res.status, 201, res.text);
  const blobs = server.app.container.get<BlobStore>(TOKENS.BlobStore);
  const stored: string[] = [];
  for await (const key of blobs.list('searches/queries')) stored.push(key);
  t.is(stored.length, 1, 'the query image is stored, listed by prefix');
  await blobs.delete(stored[0]!);

  await server.app.container.get(SearchService).run(res.json.id);
  const view = (await server.call('GET', new URL(res.json.url).pathname, { key: apiKey })).json;
  t.is(view.status, 'failed');
  t.is(view.error.code, 'file_missing');
  t.false(JSON.stringify(view).includes(stored[0]!), 'the key is logged, not shown');
});
