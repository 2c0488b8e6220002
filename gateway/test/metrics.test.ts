import test from 'ava';
import { startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
let bare: TestServer;
test.before(async () => {
  [server, bare] = await Promise.all([startTestServer({ config: { metricsToken: 'scrape-me' } }), startTestServer()]);
});
test.after.always(async () => {
  await server?.close();
  await bare?.close();
});

test('GET /metrics: 404 without METRICS_TOKEN, 401 without the token, Prometheus text with it', async (t) => {
  t.is((await bare.call('GET', '/metrics', { bearer: 'scrape-me' })).status, 404);
  const { apiKey } = await server.createAccount('metered');
  t.is((await server.call('GET', '/api/v4/account/', { key: apiKey })).status, 200);
  t.is((await server.call('GET', '/api/v4/account/', {})).status, 401);
  t.is((await server.call('GET', '/metrics')).status, 401);
  t.is((await server.call('GET', '/metrics', { bearer: 'scrape-me!' })).status, 401);
  const res = await server.call('GET', '/metrics', { bearer: 'scrape-me' });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  // Requests by route pattern and status; the queue depth and visual index size from the database.
  t.regex(res.text, /filigrane_http_requests_total\{route="\/api\/v4\/account\/",method="GET",status="200"\} 1\n/);
  t.regex(res.text, /filigrane_http_requests_total\{route="\/api\/v4\/account\/",method="GET",status="401"\} 1\n/);
  t.regex(res.text, /filigrane_http_request_duration_seconds_bucket\{le="0\.005",route="\/api\/v4\/account\/",method="GET"\}/);
  t.regex(res.text, /# TYPE filigrane_queue_depth gauge/);
  t.regex(res.text, /filigrane_visual_index_entries 0\n/);
  t.regex(res.text, /filigrane_process_resident_memory_bytes \d+/);
});
