import { existsSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { CHECKOUT } from '@filigrane/server';
import { packPackages } from './packed-packages.js';
import { scaffoldPlugin } from './plugin-scaffold.js';

/**
 * `filigrane plugin new <name> --dir <folder> [--packages <folder> | --registry]`. From a checkout
 * and without either flag, the packages are packed into `<folder>/filigrane-packages` first, so the
 * README's `npm install && npm test` work as written before anything is published.
 */
export function pluginNew(args: string[]): number {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { dir: { type: 'string' }, packages: { type: 'string' }, registry: { type: 'boolean' } }, strict: true });
  const name = positionals[0];
  if (!name || positionals.length > 1) throw new Error('usage: filigrane plugin new <name> --dir <folder> [--packages <folder of tarballs> | --registry]');
  const dir = resolve(values.dir ?? name);
  let packages = values.packages;
  if (!packages && !values.registry && existsSync(join(CHECKOUT, 'packages', 'plugin-api', 'package.json'))) {
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} is not empty: scaffold into a new folder`);
    packages = join(dir, 'filigrane-packages');
    packPackages(CHECKOUT, packages);
  }
  const files = scaffoldPlugin({ name, dir, packages });
  console.log(`plugin "${name}" written to ${dir}:\n${files.map((f) => `  ${f}`).join('\n')}\n\nNext:\n  cd ${dir}\n  npm install\n  npm test`);
  return 0;
}

/** `filigrane pack --out <folder>`: tarballs of the public packages and what they load. */
export function pack(args: string[]): number {
  const { values } = parseArgs({ args, options: { out: { type: 'string', default: 'filigrane-packages' } }, strict: true });
  const index = packPackages(CHECKOUT, values.out!);
  console.log(`${Object.keys(index).length} packages in ${resolve(values.out!)}; scaffold against them with\n  npx filigrane plugin new <name> --dir <folder> --packages ${resolve(values.out!)}`);
  return 0;
}
