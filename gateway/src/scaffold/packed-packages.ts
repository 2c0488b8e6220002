import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** What a plugin depends on directly; the others come along as their dependencies. */
export const PUBLIC_PACKAGES = ['@filigrane/plugin-api', '@filigrane/testing', '@filigrane/tsconfig'];

const INDEX = 'filigrane-packages.json';

/** The workspace folders `filigrane pack` packs: the public packages and everything they load. */
export function packableWorkspaces(root: string): string[] {
  const folders = ['packages', 'plugins'].flatMap((top) => readdirSync(join(root, top)).map((name) => `${top}/${name}`));
  return [...folders, 'gateway'].filter((folder) => {
    const file = join(root, folder, 'package.json');
    if (!existsSync(file)) return false;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { private?: boolean };
    return pkg.private !== true;
  });
}

/**
 * `npm pack` of every packable workspace into `out`, with an index (package name -> tarball) that
 * `filigrane plugin new --packages` reads. Run from a built checkout (`npm run build`).
 */
export function packPackages(root: string, out: string): Record<string, string> {
  const dest = resolve(out);
  mkdirSync(dest, { recursive: true });
  const args = ['pack', '--json', '--pack-destination', dest, ...packableWorkspaces(root).flatMap((w) => ['-w', w])];
  const packed = JSON.parse(execFileSync('npm', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as { name: string; filename: string }[];
  const index = Object.fromEntries(packed.map((p) => [p.name, join(dest, p.filename.replace(/^@/, '').replace('/', '-'))]));
  writeFileSync(join(dest, INDEX), JSON.stringify(index, null, 2) + '\n');
  return index;
}

/** The index written by packPackages. */
export function packedPackages(folder: string): Record<string, string> {
  const file = join(resolve(folder), INDEX);
  if (!existsSync(file)) throw new Error(`${folder} holds no ${INDEX}: make it with \`npx filigrane pack --out ${folder}\``);
  const index = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  for (const name of PUBLIC_PACKAGES) if (!index[name]) throw new Error(`${file} has no tarball of ${name}`);
  return index;
}
