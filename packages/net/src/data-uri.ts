import { FetchError } from './fetch-error.js';

const MEDIA_TYPE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Decodes an RFC 2397 `data:` URI (base64 or percent-encoded). The size is checked from the
 * length before anything is decoded, then exactly after. contentType is the media type only,
 * lower case, `text/plain` when omitted.
 */
export function parseDataUri(uri: string, maxBytes: number): { contentType: string; body: Buffer } {
  const invalid = (why: string) => new FetchError('invalid_data_uri', `invalid data URI: ${why}`);
  const tooLarge = () => new FetchError('too_large', `data URI is larger than ${maxBytes} bytes`);
  if (!/^data:/i.test(uri)) throw invalid('not a data: URI');
  const comma = uri.indexOf(',');
  if (comma < 0) throw invalid('no comma before the data');
  const params = uri.slice(5, comma).split(';').map((p) => p.trim());
  const isBase64 = params.length > 1 && params[params.length - 1]!.toLowerCase() === 'base64';
  const type = params[0]!.toLowerCase();
  if (type !== '' && !MEDIA_TYPE.test(type)) throw invalid('malformed media type');
  const contentType = type || 'text/plain';
  let payload = uri.slice(comma + 1);

  if (isBase64) {
    if (payload.includes('%')) payload = Buffer.from(percentDecode(payload, invalid)).toString('latin1');
    payload = payload.replace(/[\s]+/g, '');
    if (!BASE64.test(payload) || payload.length % 4 === 1 || (payload.includes('=') && payload.length % 4 !== 0)) {
      throw invalid('malformed base64');
    }
    const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0;
    if (Math.floor((payload.length * 3) / 4) - padding > maxBytes) throw tooLarge();
    return { contentType, body: Buffer.from(payload, 'base64') };
  }
  // Each decoded byte costs at least one and at most three characters.
  if (Math.ceil(payload.length / 3) > maxBytes) throw tooLarge();
  const body = percentDecode(payload, invalid);
  if (body.length > maxBytes) throw tooLarge();
  return { contentType, body };
}

// %XX to a byte; other characters as their UTF-8 bytes. Decodes in place: output never outgrows input.
function percentDecode(text: string, invalid: (why: string) => FetchError): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  let out = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x25) {
      bytes[out++] = bytes[i]!;
      continue;
    }
    const hex = bytes.toString('latin1', i + 1, i + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw invalid('bad percent escape');
    bytes[out++] = parseInt(hex, 16);
    i += 2;
  }
  return bytes.subarray(0, out);
}
