import test from 'ava';
import { ApiError, isUploadedFile } from '@filigrane/core';
import { multipartBoundary, parseMultipart } from '../src/rest/multipart.js';

const B = 'xYz-boundary';
const form = (...parts: string[]) => Buffer.from(parts.map((p) => `--${B}\r\n${p}\r\n`).join('') + `--${B}--\r\n`, 'latin1');

test('fields, repeated fields and one file with binary bytes', (t) => {
  const bytes = '\xff\xd8\xff\r\n--not-a-boundary\x00';
  const body = parseMultipart(
    form(
      'Content-Disposition: form-data; name="mode"\r\n\r\nleaks',
      'Content-Disposition: form-data; name="transforms"\r\n\r\nscale',
      'Content-Disposition: form-data; name="transforms"\r\n\r\naffine',
      `Content-Disposition: form-data; name="file"; filename="a \\"b\\".jpg"\r\nContent-Type: image/jpeg\r\n\r\n${bytes}`,
    ),
    B,
  );
  t.is(body.mode, 'leaks');
  t.deepEqual(body.transforms, ['scale', 'affine']);
  t.true(isUploadedFile(body.file));
  const file = body.file as { filename: string; contentType: string; data: Buffer };
  t.is(file.filename, 'a "b".jpg');
  t.is(file.contentType, 'image/jpeg');
  t.deepEqual(file.data, Buffer.from(bytes, 'latin1'));
});

test('boundary from the header, quoted or not; malformed bodies are 400, excess parts 413', (t) => {
  t.is(multipartBoundary('multipart/form-data; boundary="a b"'), 'a b');
  t.is(multipartBoundary('multipart/form-data; charset=utf-8; boundary=abc'), 'abc');
  t.throws(() => multipartBoundary('multipart/form-data'), { instanceOf: ApiError });
  const status = (fn: () => unknown) => (t.throws(fn, { instanceOf: ApiError }) as ApiError).statusCode;
  t.is(status(() => parseMultipart(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated`), B)), 400);
  t.is(status(() => parseMultipart(form('Content-Type: text/plain\r\n\r\nno name'), B)), 400);
  const many = Array.from({ length: 33 }, (_, i) => `Content-Disposition: form-data; name="f${i}"\r\n\r\nx`);
  t.is(status(() => parseMultipart(form(...many), B)), 413);
  const twoFiles = ['a', 'b'].map((n) => `Content-Disposition: form-data; name="${n}"; filename="${n}.png"\r\n\r\nx`);
  t.is(status(() => parseMultipart(form(...twoFiles), B)), 413);
  t.is(status(() => parseMultipart(form(`Content-Disposition: form-data; name="big"\r\n\r\n${'x'.repeat(70_000)}`), B)), 413);
});
