/**
 * Entry point of the single executable. sharp's native addon (plus libvips) cannot be loaded from
 * inside the executable: its files travel as an asset that is unpacked once into a per-version cache
 * folder, and the addon is loaded from there with a regular require; sharp's JavaScript is bundled.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { provideSharp } from '@filigrane/vision';
import { runMain } from './cli';

interface SeaModule {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

/** Asset layout: repeated [u32 path length][path][u32 mode][u32 data length][data], little-endian. */
function unpack(pack: Buffer, root: string): void {
  let o = 0;
  while (o < pack.length) {
    const nameLength = pack.readUInt32LE(o);
    const name = pack.toString('utf8', o + 4, o + 4 + nameLength);
    o += 4 + nameLength;
    const mode = pack.readUInt32LE(o);
    const size = pack.readUInt32LE(o + 4);
    o += 8;
    if (name.split('/').includes('..')) throw new Error(`bad path in the sharp asset: ${name}`);
    const target = join(root, name);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, pack.subarray(o, o + size));
    chmodSync(target, mode & 0o777);
    o += size;
  }
}

function cacheRoots(): string[] {
  const roots: string[] = [];
  if (process.env.FILIGRANE_CACHE_DIR) roots.push(process.env.FILIGRANE_CACHE_DIR);
  const xdg = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  roots.push(join(xdg, 'filigrane-mark'), join(tmpdir(), `filigrane-mark-${process.getuid?.() ?? 'user'}`));
  return roots;
}

function loadBundledSharp(sea: SeaModule): void {
  // The id is the pack's hash, stored beside it at build time: the 20 MB pack is read (copied out of
  // the executable) only when it has to be unpacked. Older builds without it hash the pack.
  let pack: Buffer | undefined;
  const packed = (): Buffer => (pack ??= Buffer.from(sea.getAsset('sharp.pack')));
  let id: string;
  try {
    id = Buffer.from(sea.getAsset('sharp.id')).toString('latin1');
  } catch {
    id = createHash('sha256').update(packed()).digest('hex').slice(0, 16);
  }
  if (!/^[0-9a-f]{16}$/.test(id)) throw new Error('bad sharp.id asset in the executable');
  let lastError: unknown;
  for (const root of cacheRoots()) {
    const dir = join(root, id);
    try {
      if (!existsSync(join(dir, 'complete'))) {
        // Unpack into a private folder, then rename: concurrent runs never see a partial tree.
        const staging = `${dir}.${randomBytes(6).toString('hex')}`;
        mkdirSync(staging, { recursive: true });
        unpack(packed(), staging);
        writeFileSync(join(staging, 'complete'), '');
        try {
          renameSync(staging, dir);
        } catch {
          rmSync(staging, { recursive: true, force: true }); // another run won the race
        }
      }
      const req = createRequire(join(dir, 'node_modules', 'loader.js'));
      // sharp's JavaScript is in the bundle (scripts/build-sea.js); its platform packages (native addon,
      // libvips' versions) load from here.
      (globalThis as { __filigraneSharpRequire?: (id: string) => unknown }).__filigraneSharpRequire = req;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      provideSharp(require('sharp') as Parameters<typeof provideSharp>[0]);
      return;
    } catch (err) {
      lastError = err;
    }
  }
  throw new Error(`cannot unpack the image codec library: ${String(lastError)}`);
}

function main(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sea = require('node:sea') as SeaModule;
  if (sea.isSea()) loadBundledSharp(sea);
  runMain(process.argv.slice(2));
}

main();
