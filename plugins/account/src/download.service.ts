import { createReadStream, type ReadStream } from 'node:fs';
import { readdir, readFile, lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { inject, injectable } from 'inversify';
import { TOKENS, type AppConfig } from '@filigrane/core';

/** Names we serve from the tool folder: plain names only, never hidden or with separators. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The offline tool's binaries: whatever regular files the release folder holds. */
@injectable()
export class DownloadService {
  constructor(@inject(TOKENS.Config) private readonly config: AppConfig) {}

  async binaries(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.config.toolDir);
    } catch {
      return [];
    }
    const files: string[] = [];
    for (const name of names.sort()) {
      if (!SAFE_NAME.test(name)) continue;
      const st = await lstat(join(this.config.toolDir, name));
      if (st.isFile()) files.push(name);
    }
    return files;
  }

  /** The binary opened for streaming with its size (it is over 100 MB), or null when no such file is listed. */
  async binary(name: string): Promise<{ stream: ReadStream; size: number } | null> {
    if (!(await this.binaries()).includes(name)) return null;
    const path = join(this.config.toolDir, name);
    const { size } = await stat(path);
    // Only `size` bytes: a rebuild replacing the file meanwhile must not break Content-Length.
    return { stream: createReadStream(path, { start: 0, end: Math.max(0, size - 1) }), size };
  }

  /**
   * Executables being built right now (the first start builds the linux-x64 tool in the
   * background): named by the build's lock file in the tool folder while its process lives.
   */
  async building(): Promise<string[]> {
    let lock: { pid: number; name: string };
    try {
      lock = JSON.parse(await readFile(join(this.config.toolDir, '.build.lock'), 'utf8')) as { pid: number; name: string };
      process.kill(lock.pid, 0);
    } catch (err) {
      // No lock, an unreadable one, or a dead builder (EPERM would be alive under another user).
      if ((err as NodeJS.ErrnoException).code !== 'EPERM') return [];
      lock ??= { pid: 0, name: '' };
    }
    return SAFE_NAME.test(lock.name) && !(await this.binaries()).includes(lock.name) ? [lock.name] : [];
  }

  version(): string {
    return this.config.toolVersion;
  }
}
