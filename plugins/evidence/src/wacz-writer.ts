// WACZ 1.1.1 (Webrecorder): a zip of archive/*.warc.gz, indexes/index.cdxj, pages/pages.jsonl and
// any other files, with datapackage.json listing each (sha256, bytes) and datapackage-digest.json
// holding the hash of datapackage.json, its signature and the time stamp of it.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { CDXIndexer } from 'warcio';
import { ZipFile } from 'yazl';

export const WACZ_VERSION = '1.1.1';

export interface WaczFile {
  path: string;
  data: Buffer;
}

export interface WaczPage {
  url: string;
  ts: string;
  title?: string;
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** CDXJ lines of the WARC files (sorted), for replay tools that read WACZ. */
export async function cdxjIndex(warcs: WaczFile[]): Promise<Buffer> {
  const indexer = new CDXIndexer({});
  const lines: string[] = [];
  for (const w of warcs) {
    const filename = w.path.replace(/^archive\//, '');
    for await (const cdx of indexer.iterIndex([{ filename, reader: Readable.from([w.data]) }])) lines.push(indexer.serializeCDXJ(cdx).trimEnd());
  }
  lines.sort();
  return Buffer.from(lines.length ? lines.join('\n') + '\n' : '', 'utf8');
}

/** pages/pages.jsonl: the header line, then one line per page. */
export function pagesJsonl(pages: WaczPage[]): Buffer {
  const lines = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'Pages of the evidence' })];
  pages.forEach((p, i) => lines.push(JSON.stringify({ id: `page-${i + 1}`, url: p.url, ts: p.ts, ...(p.title ? { title: p.title } : {}) })));
  return Buffer.from(lines.join('\n') + '\n', 'utf8');
}

/** datapackage.json's bytes for these files (every file of the zip but the two datapackage files). */
export function datapackage(files: WaczFile[], meta: { title: string; created: string; software: string; mainPageUrl?: string; mainPageDate?: string }): Buffer {
  const resources = files.map((f) => ({ name: f.path.split('/').pop(), path: f.path, hash: `sha256:${sha256(f.data)}`, bytes: f.data.length }));
  const doc = { profile: 'data-package', wacz_version: WACZ_VERSION, ...meta, resources };
  return Buffer.from(JSON.stringify(doc, null, 2) + '\n', 'utf8');
}

/** The zip: every file stored (no compression: WARCs are gzipped already, and readers may seek). */
export async function zipWacz(files: WaczFile[], mtime: Date): Promise<Buffer> {
  const zip = new ZipFile();
  for (const f of files) zip.addBuffer(f.data, f.path, { compress: false, mtime });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
