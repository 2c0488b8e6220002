import type { IncomingHttpHeaders } from 'node:http';
import { decodeBuffer } from 'encoding-sniffer';

/**
 * The text of an HTML page in the encoding a browser would read it in (encoding-sniffer: byte
 * order mark, then the Content-Type charset, then a `<meta charset>` in the first 1024 bytes).
 * Without any of them UTF-8, not the standard's windows-1252: most undeclared pages today are
 * UTF-8. Shift_JIS, windows-1252, GBK... pages keep their titles and their non-ASCII links.
 */
export function decodeHtml(body: Buffer, headers: IncomingHttpHeaders | undefined): string {
  const type = headers?.['content-type'];
  const charset = /;\s*charset\s*=\s*["']?([^"';\s]+)/i.exec(typeof type === 'string' ? type : '')?.[1];
  return decodeBuffer(body, { transportLayerEncodingLabel: charset, defaultEncoding: 'utf-8' });
}

/** The first bytes of a response as text, for sniffing: UTF-16 when a byte order mark says so. */
export function headText(body: Buffer): string {
  const head = body.subarray(0, 1024);
  if (head[0] === 0xff && head[1] === 0xfe) return new TextDecoder('utf-16le').decode(head);
  if (head[0] === 0xfe && head[1] === 0xff) return new TextDecoder('utf-16be').decode(head);
  return head.toString('utf8');
}
