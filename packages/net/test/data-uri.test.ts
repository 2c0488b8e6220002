import test from 'ava';
import { FetchError, fetchResource, parseDataUri } from '../src/index.js';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof FetchError ? err.code : 'not a FetchError';
  }
  return undefined;
}

test('base64 data URIs decode with their media type', (t) => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]);
  const parsed = parseDataUri(`data:Image/PNG;name=x.png;base64,${png.toString('base64')}`, 100);
  t.is(parsed.contentType, 'image/png');
  t.deepEqual(parsed.body, png);
  t.deepEqual(parseDataUri('data:;base64,aGk', 10).body, Buffer.from('hi'), 'padding optional');
  t.deepEqual(parseDataUri('data:image/png;base64,aG\n k=', 10).body, Buffer.from('hi'), 'whitespace ignored');
  t.deepEqual(parseDataUri('data:image/png;base64,%2B%2F8%3D', 10).body, Buffer.from('+/8=', 'base64'));
});

test('percent-encoded data URIs decode bytes and UTF-8 text', (t) => {
  const parsed = parseDataUri('data:,a%20b%ff%00%C3%A9\u00e9', 100);
  t.is(parsed.contentType, 'text/plain');
  t.deepEqual(parsed.body, Buffer.from([0x61, 0x20, 0x62, 0xff, 0x00, 0xc3, 0xa9, 0xc3, 0xa9]));
  t.is(parseDataUri('data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E', 100).body.toString(), '<svg/>');
  t.is(parseDataUri('data:,', 0).body.length, 0);
});

test('size is checked before decoding and exactly after', (t) => {
  t.is(code(() => parseDataUri(`data:;base64,${Buffer.alloc(11).toString('base64')}`, 10)), 'too_large');
  t.is(parseDataUri(`data:;base64,${Buffer.alloc(10).toString('base64')}`, 10).body.length, 10);
  t.is(code(() => parseDataUri(`data:,${'%41'.repeat(11)}`, 10)), 'too_large');
  t.is(code(() => parseDataUri(`data:,${'a'.repeat(31)}`, 10)), 'too_large', 'refused from the length alone');
  t.is(parseDataUri(`data:,${'%41'.repeat(10)}`, 10).body.toString(), 'A'.repeat(10));
});

test('malformed data URIs are invalid_data_uri', (t) => {
  for (const uri of [
    'data:image/png;base64',
    'data:image/png;base64,abc*',
    'data:image/png;base64,a',
    'data:image/png;base64,ab=c',
    'data:,%zz',
    'data:,abc%4',
    'data:not a type,x',
    'data:image/,x',
    'http://example.com/',
  ]) {
    t.is(code(() => parseDataUri(uri, 100)), 'invalid_data_uri', uri);
  }
});

test('fetchResource decodes data URIs locally', async (t) => {
  const res = await fetchResource(' data:image/gif;base64,R0lGOD== ');
  t.like(res, { url: 'data:', status: 200, contentType: 'image/gif' });
  t.deepEqual(res.body, Buffer.from('R0lGOD==', 'base64'));
  const err = await t.throwsAsync(fetchResource('data:;base64,AAAA', { maxBytes: 2 }), { instanceOf: FetchError });
  t.is(err?.code, 'too_large');
});
