import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import { assertBlobKey, type BlobStore, type ByteRange } from '@filigrane/core';

/** BlobStore on the local filesystem; writes are atomic (temporary file, then rename). */
export class FsBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private path(key: string): string {
    assertBlobKey(key);
    return join(this.root, key);
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, target);
  }

  async putStream(key: string, source: Readable): Promise<number> {
    const target = this.path(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    const out = createWriteStream(tmp, { mode: 0o600 });
    try {
      await pipeline(source, out);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    await rename(tmp, target);
    return out.bytesWritten;
  }

  async open(key: string, pick?: (size: number) => ByteRange | null): Promise<{ stream: Readable; size: number; range: ByteRange | null } | null> {
    let handle;
    try {
      handle = await open(this.path(key), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    let size: number;
    let range: ByteRange | null;
    try {
      size = (await handle.stat()).size;
      range = pick ? pick(size) : null;
    } catch (err) {
      await handle.close();
      throw err;
    }
    // The stream owns the handle: it is closed when the stream ends or is destroyed.
    return { stream: handle.createReadStream({ autoClose: true, ...(range ?? {}) }), size, range };
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.path(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    await rm(this.path(prefix), { recursive: true, force: true });
  }

  async *list(prefix: string): AsyncIterable<string> {
    const root = this.path(prefix);
    // Depth first with sorted entries; '/' sorts before every key character, so this is key order.
    const walk = async function* (dir: string, key: string): AsyncGenerator<string> {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return;
        throw err;
      }
      const names = entries.filter((e) => !e.name.endsWith('.tmp')).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of names) {
        if (e.isDirectory()) yield* walk(join(dir, e.name), `${key}/${e.name}`);
        else if (e.isFile()) yield `${key}/${e.name}`;
      }
    };
    yield* walk(root, prefix);
  }
}
