import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bytes in a temporary file (decoders such as ffmpeg read files), removed after use whatever happens. */
export async function withTempFile<T>(data: Buffer, use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'filigrane-video-'));
  try {
    const file = join(dir, 'input');
    await writeFile(file, data);
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
