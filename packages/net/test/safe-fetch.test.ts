import test from 'ava';
import { FetchError, FetchErrorCode, safeFetch, SafeFetchOptions } from '../src/index.js';
import { LoopbackServer, startLoopbackServer } from './loopback-server.js';

let server: LoopbackServer;
const LOOPBACK: SafeFetchOptions = { allowHosts: ['127.0.0.0/8'] };

test.before(async () => {
  server = await startLoopbackServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const n = Number(url.searchParams.get('n') ?? 0);
    switch (url.pathname) {
      case '/image':
        res.writeHead(200, { 'content-type': 'Image/PNG; charset=binary' });
        res.end(JSON.stringify({ ua: req.headers['user-agent'], accept: req.headers.accept, enc: req.headers['accept-encoding'] }));
        return;
      case '/sized': // Content-Length set
        res.writeHead(200, { 'content-length': n });
        res.end(Buffer.alloc(n, 1));
        return;
      case '/chunked': // no Content-Length: only counting the stream catches it
        res.writeHead(200);
        for (let i = 0; i < n; i += 100) res.write(Buffer.alloc(Math.min(100, n - i)));
        res.end();
        return;
      case '/trickle': {
        res.writeHead(200, { 'content-length': 1000 });
        const timer = setInterval(() => res.write('x'), 20);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/redirect': // /redirect?to=<url>&status=<code>
        res.writeHead(Number(url.searchParams.get('status') ?? 302), url.searchParams.has('to') ? { location: url.searchParams.get('to')! } : {});
        res.end();
        return;
      case '/chain': // /chain?n=k redirects k times, relative Location, then answers
        if (n > 0) res.writeHead(301, { location: `chain?n=${n - 1}` }).end();
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('end of chain');
        return;
      default:
        res.writeHead(404).end('no');
    }
  });
});

test.after.always(() => server.close());

async function refusal(url: string, options: SafeFetchOptions = {}): Promise<FetchError> {
  const err = await safeFetch(url, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof FetchError)) throw new Error(`${url}: expected a FetchError, got ${String(err)}`);
  return err;
}

async function refusedWith(code: FetchErrorCode, url: string, options?: SafeFetchOptions): Promise<FetchError> {
  const err = await refusal(url, options);
  if (err.code !== code) throw new Error(`${url}: expected ${code}, got ${err.code} (${err.message})`);
  return err;
}

test('an allow-listed loopback fetch returns body, media type and final URL', async (t) => {
  const res = await safeFetch(`${server.origin}/image`, { ...LOOPBACK, accept: 'image/*' });
  t.is(res.status, 200);
  t.is(res.contentType, 'image/png');
  t.is(res.url, `${server.origin}/image`);
  t.deepEqual(JSON.parse(res.body.toString()), {
    ua: 'Filigrane/0.1 (+https://github.com/filigrane)',
    accept: 'image/*',
    enc: 'identity',
  });
  const byName = await safeFetch(`http://localhost:${server.port}/image`, { allowHosts: ['localhost'] });
  t.is(byName.contentType, 'image/png');
});

test('loopback without the allow list is refused in every spelling, before any request', async (t) => {
  const p = server.port;
  for (const host of ['127.0.0.1', 'localhost', 'LocalHost', '0x7f.1', '2130706433', '127.1', '0177.0.0.1', '[::ffff:127.0.0.1]', '[::1]', '0.0.0.0', '[::]']) {
    await refusedWith('address_not_allowed', `http://${host}:${p}/image?probe=refused`);
  }
  // An allow-listed name does not vouch for another spelling of the same address.
  await refusedWith('address_not_allowed', `http://127.0.0.1:${p}/image?probe=refused`, { allowHosts: ['localhost'] });
  t.false(server.hits.some((h) => h.includes('probe=refused')));
});

test('redirects are followed relative to the current URL, up to the limit', async (t) => {
  const res = await safeFetch(`${server.origin}/chain?n=5`, LOOPBACK);
  t.is(res.body.toString(), 'end of chain');
  t.is(res.url, `${server.origin}/chain?n=0`);
  const err = await refusedWith('too_many_redirects', `${server.origin}/chain?n=3`, { ...LOOPBACK, maxRedirects: 2 });
  t.is(err.status, undefined);
  await refusedWith('too_many_redirects', `${server.origin}/chain?n=1`, { ...LOOPBACK, maxRedirects: 0 });
});

test('a redirect to a forbidden address or scheme is refused on that hop', async (t) => {
  const to = (target: string, status = 302) =>
    `http://localhost:${server.port}/redirect?status=${status}&to=${encodeURIComponent(target)}`;
  const allowName = { allowHosts: ['localhost'] };
  await refusedWith('address_not_allowed', to(`http://127.0.0.1:${server.port}/image?probe=hop`), allowName);
  await refusedWith('address_not_allowed', to('http://169.254.169.254/latest/meta-data/', 307), allowName);
  await refusedWith('address_not_allowed', to(`http://[::ffff:7f00:1]:${server.port}/image?probe=hop`, 308), allowName);
  await refusedWith('scheme_not_allowed', to('file:///etc/passwd', 301), allowName);
  await refusedWith('invalid_url', to(`http://user:pw@localhost:${server.port}/image?probe=hop`, 303), allowName);
  t.false(server.hits.some((h) => h.startsWith('/image?probe=hop')), 'no refused hop reached the server');
});

test('maxBytes caps responses with and without Content-Length', async (t) => {
  t.is((await safeFetch(`${server.origin}/sized?n=1000`, { ...LOOPBACK, maxBytes: 1000 })).body.length, 1000);
  await refusedWith('too_large', `${server.origin}/sized?n=1001`, { ...LOOPBACK, maxBytes: 1000 });
  t.is((await safeFetch(`${server.origin}/chunked?n=1000`, { ...LOOPBACK, maxBytes: 1000 })).body.length, 1000);
  await refusedWith('too_large', `${server.origin}/chunked?n=5000`, { ...LOOPBACK, maxBytes: 1000 });
});

test('the timeout is a total deadline: a trickling body does not keep it alive', async (t) => {
  const started = Date.now();
  await refusedWith('timeout', `${server.origin}/trickle`, { ...LOOPBACK, timeoutMs: 300 });
  t.true(Date.now() - started < 2000);
});

test('a non-2xx final status is http_error with the status', async (t) => {
  const err = await refusedWith('http_error', `${server.origin}/missing`, LOOPBACK);
  t.is(err.status, 404);
  const noLocation = await refusedWith('http_error', `${server.origin}/redirect?status=302`, LOOPBACK);
  t.is(noLocation.status, 302);
});

test('only http and https; malformed URLs and credentials are refused', async (t) => {
  for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'gopher://example.com:70/', 'javascript:alert(1)', 'data:,x']) {
    await refusedWith('scheme_not_allowed', url);
  }
  for (const url of ['not a url', 'http://', `http://user:secret@127.0.0.1:${server.port}/image`, 'http://[::1/']) {
    await refusedWith('invalid_url', url, LOOPBACK);
  }
  t.pass();
});
