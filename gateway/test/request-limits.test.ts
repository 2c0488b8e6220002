import test from 'ava';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from './support/test-server.js';

let server: TestServer;
let key: string;

test.before(async () => {
  server = await startTestServer();
  key = (await server.createAccount('limits')).apiKey;
});
test.after.always(async () => server?.close());

/** Sends only the request head (announcing a large body) and returns the status line the server answers with. */
function headOnly(head: string): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let data = '';
    socket.setTimeout(5000, () => {
      socket.destroy();
      resolve(`timeout: ${data}`);
    });
    socket.on('data', (d) => {
      data += d.toString('latin1');
      if (data.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(data.split('\r\n')[0]!);
      }
    });
    socket.on('error', reject);
  });
}

test('credentials are checked before the body is read', async (t) => {
  const big = 'Content-Type: image/png\r\nContent-Length: 60000000\r\n';
  t.regex(await headOnly(`PUT /api/v4/media/limits/a.png HTTP/1.1\r\nHost: x\r\n${big}\r\n`), / 401 /, 'no credentials');
  t.regex(await headOnly(`PUT /api/v4/media/limits/a.png HTTP/1.1\r\nHost: x\r\nAuthorization: Token nope\r\n${big}\r\n`), / 401 /, 'wrong credentials');
  t.regex(await headOnly(`POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Token nope\r\nContent-Type: application/json\r\nContent-Length: 60000000\r\n\r\n`), / 401 /);
  // With good credentials the server waits for the body (it is an upload route).
  t.regex(await headOnly(`PUT /api/v4/media/limits/a.png HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${key}\r\n${big}\r\n`), /^timeout/);
});

test('per-route body limits: JSON routes take 1 MiB, upload routes the upload limit', async (t) => {
  const json = JSON.stringify({ url: 'example.com', pad: 'x'.repeat(1_100_000) });
  const small = await server.call('POST', '/api/v4/domains/blacklist/', { key, body: json, headers: { 'content-type': 'application/json' } });
  t.is(small.status, 413);
  t.is(small.json.code, 'request_too_large');
  const upload = await server.call('PUT', '/api/v4/media/limits/big.png', { key, body: Buffer.alloc(2_000_000, 1), headers: { 'content-type': 'image/png' } });
  t.not(upload.status, 413, 'a 2 MB upload is read (and refused for what it is, not for its size)');
  t.true(upload.status >= 400 && upload.status < 500);
});

test('the image search decodes only JPEG, PNG and GIF: SVG and TIFF are 415', async (t) => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="red"/></svg>';
  const tiff = Buffer.concat([Buffer.from('49492a00', 'hex'), Buffer.alloc(64)]);
  for (const [name, data, type] of [['a.svg', Buffer.from(svg), 'image/svg+xml'], ['a.tif', tiff, 'image/tiff']] as const) {
    const boundary = 'b0undary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`),
      data,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await server.call('POST', '/api/v4/searches/', { key, body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    t.is(res.status, 415, name);
    t.is(res.json.code, 'unsupported_format');
    const viaUri = await server.call('POST', '/api/v4/searches/', { key, json: { file: `data:${type};base64,${data.toString('base64')}` } });
    t.is(viaUri.status, 415, `${name} as a data URI`);
  }
});

/** Sends a whole request (Connection: close) and returns the status code and body the server answers with. */
function rawExchange(request: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = '';
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', (d) => (data += d.toString('utf8')));
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(data)?.[1] ?? 0), body: data.slice(data.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
  });
}

test('a Host header no URL can be built on is a 400 invalid_host on every route and the WebSocket, not a 500', async (t) => {
  const get = (path: string, host: string | null, version = '1.1') =>
    rawExchange(`GET ${path} HTTP/${version}\r\n${host === null ? '' : `Host: ${host}\r\n`}Authorization: Token ${key}\r\nConnection: close\r\n\r\n`);
  for (const host of ['[::1', 'a b', 'x:99999', 'x:abc', '%zz', 'x/y', 'x@y', ':80', '[zz]']) {
    for (const path of ['/api/v4/account/', '/api/v4/nothere/', '/graphql?query=%7Baccount%7Busername%7D%7D', '/api/schema/', '/']) {
      const answer = await get(path, host);
      t.is(answer.status, 400, `${host} ${path}: ${answer.body.slice(0, 200)}`);
      const body = JSON.parse(answer.body.slice(answer.body.indexOf('{'), answer.body.lastIndexOf('}') + 1));
      // GraphQL answers in its own shape, with the same status and code in each error's extensions.
      if (path.startsWith('/graphql')) t.like(body.errors[0].extensions, { status_code: 400, apiCode: 'invalid_host' }, `${host} ${path}`);
      else t.like(body, { status_code: 400, code: 'invalid_host' }, `${host} ${path}`);
    }
    const upgrade = await rawExchange(`GET /graphql HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n`);
    t.is(upgrade.status, 400, `upgrade with ${host}`);
    t.like(JSON.parse(upgrade.body), { status_code: 400, code: 'invalid_host' });
  }
  const elsewhere = await rawExchange(`GET /api/v4/account/ HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
  t.is(elsewhere.status, 404);
  t.like(JSON.parse(elsewhere.body), { status_code: 404, code: 'not_found' });
  // A malformed handshake on /graphql: ws answered text/html.
  for (const [name, headers] of [['key', 'Sec-WebSocket-Key: garbage\r\nSec-WebSocket-Version: 13'], ['version', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 99']] as const) {
    const malformed = await rawExchange(`GET /graphql HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${headers}\r\n\r\n`);
    t.is(malformed.status, 400, name);
    t.like(JSON.parse(malformed.body), { status_code: 400, code: 'invalid_handshake' }, name);
  }
  // Names, addresses and ports stay welcome; without a Host (HTTP/1.0) links use the configured address.
  for (const host of ['example.com', 'example.com:8080', '127.0.0.1:1', '[::1]:8080', 'xn--caf-dma.example']) {
    const answer = await get('/api/v4/account/', host);
    t.is(answer.status, 200, `${host}: ${answer.body.slice(0, 200)}`);
  }
  t.is((await get('/api/v4/account/', null, '1.0')).status, 200);
  // HTTP/1.1 requires a Host: refused with the error body (Node's own 400 had none).
  const hostless = await get('/api/v4/account/', null);
  t.is(hostless.status, 400);
  t.like(JSON.parse(hostless.body), { status_code: 400, code: 'invalid_host' });
});

test('an Expect other than 100-continue is a 417 with the error body', async (t) => {
  const answer = await rawExchange(`POST /api/v4/domains/blacklist/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${key}\r\nContent-Type: application/json\r\nExpect: something-else\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
  t.is(answer.status, 417);
  t.like(JSON.parse(answer.body), { status_code: 417, code: 'expectation_failed' });
  const continued = await rawExchange(`POST /api/v4/domains/blacklist/ HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${key}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
  t.is(continued.status, 100, 'Expect: 100-continue is answered 100 Continue...');
  t.regex(continued.body, /HTTP\/1\.1 400 [^]*"code":"invalid"/, '...then the route answers (it wants a url)');
});
