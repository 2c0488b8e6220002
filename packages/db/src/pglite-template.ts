import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * A fresh in-memory PGlite, started from a cached copy of an empty cluster: initdb takes 8-12 s on
 * a busy 2-core machine, loading the copy about 3 s, and every test server starts one. The copy is
 * keyed by PGlite's version, kept in the user's temp folder (mode 0600), written atomically.
 */
export async function freshMemoryPglite(): Promise<PGlite> {
  const file = templateFile();
  if (file && existsSync(file) && statSync(file).uid === process.getuid?.()) {
    try {
      return await PGlite.create('memory://', { loadDataDir: new Blob([readFileSync(file)]) });
    } catch {
      // A damaged copy: fall through to initdb, which rewrites it.
    }
  }
  const db = await PGlite.create('memory://');
  if (file) {
    try {
      const dump = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
      const partial = `${file}.${process.pid}.tmp`;
      writeFileSync(partial, dump, { mode: 0o600 });
      renameSync(partial, file);
    } catch {
      // No cache this time; the database itself is fine.
    }
  }
  return db;
}

function templateFile(): string | null {
  try {
    // The package exports no package.json: read it beside its entry (dist/index.cjs).
    const entry = createRequire(__filename).resolve('@electric-sql/pglite');
    const version = (JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
    const dir = join(tmpdir(), `filigrane-pglite-${userInfo().username}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return join(dir, `empty-cluster-${version}.tar.gz`);
  } catch {
    return null;
  }
}
