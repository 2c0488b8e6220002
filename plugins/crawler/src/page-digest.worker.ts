// Runs in a worker thread (page-digester.ts): the CPU-heavy part of each fetch, away from the
// event loop that fetches, talks to the database and serves requests: the WARC records (digests,
// gzip) and, for an HTML page, its parsing.
import { parentPort } from 'node:worker_threads';
import type { FetchedResource } from '@filigrane/net';
import { decodeHtml } from './html-decode.js';
import { extractPage, type ExtractedPage } from './html-extract.js';
import { warcExchange } from './warc-writer.js';

export interface DigestTask {
  id: number;
  res: FetchedResource;
  date: number;
  /** Parse the body as HTML too. */
  html: boolean;
}

export type DigestReply =
  | { id: number; ok: true; records: Uint8Array; page: ExtractedPage | null; pageError: string | null }
  | { id: number; ok: false; message: string };

const buf = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/** The work itself, also run in the calling thread when no worker can be started. */
export async function digest(task: Omit<DigestTask, 'id'>): Promise<{ records: Buffer; page: ExtractedPage | null; pageError: string | null }> {
  const res = { ...task.res, body: buf(task.res.body) };
  const records = await warcExchange(res, new Date(task.date));
  if (!task.html) return { records, page: null, pageError: null };
  try {
    return { records, page: extractPage(decodeHtml(res.body, res.headers), res.url), pageError: null };
  } catch (err) {
    return { records, page: null, pageError: (err as Error).message };
  }
}

parentPort?.on('message', (task: DigestTask) => {
  digest(task).then(
    (r) => parentPort!.postMessage({ id: task.id, ok: true, ...r } satisfies DigestReply, [r.records.buffer as ArrayBuffer].filter((b) => b.byteLength === r.records.byteLength)),
    (err: unknown) => parentPort!.postMessage({ id: task.id, ok: false, message: (err as Error).message } satisfies DigestReply),
  );
});
