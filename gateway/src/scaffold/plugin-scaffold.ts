import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { PLUGIN_API_VERSION } from '@filigrane/core';
import { pluginNames, type PluginNames } from './plugin-names.js';
import { packedPackages, PUBLIC_PACKAGES } from './packed-packages.js';

/** The template of `filigrane plugin new`, shipped in the gateway package (templates/plugin). */
const TEMPLATE_DIR = resolve(__dirname, '..', '..', '..', 'templates', 'plugin');

// dependency-cruiser: the import-boundary lint the scaffold ships (.dependency-cruiser.cjs), as the repository's.
const TOOLCHAIN = { '@types/node': '20.19.43', ava: '7.0.0', 'dependency-cruiser': '17.4.3', typescript: '5.9.3' };

/**
 * The first-party plugins the generated test's server loads besides the new plugin: identity
 * (auth, account), which the test kit always loads, and search, which the template requires. The
 * kit depends on no plugin: the plugin's package names those its tests need.
 */
export const TEST_PLUGIN_PACKAGES = ['@filigrane/plugin-auth', '@filigrane/plugin-account', '@filigrane/plugin-search'];

export interface ScaffoldOptions {
  name: string;
  dir: string;
  /** A folder of tarballs from `filigrane pack`: the plugin installs Filigrane's packages from there. */
  packages?: string;
}

function render(text: string, n: PluginNames): string {
  return text.replace(/__API__/g, PLUGIN_API_VERSION).replace(/__ENV__/g, n.env).replace(/__Pascal__/g, n.pascal).replace(/__camel__/g, n.camel).replace(/__snake__/g, n.snake).replace(/__id__/g, n.id);
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => (statSync(join(dir, entry)).isDirectory() ? templateFiles(join(dir, entry)) : [join(dir, entry)]));
}

/** Writes a plugin package (setting, entity + migration, route, scheduled job, tracking source, test, README) into `dir`. */
export function scaffoldPlugin(options: ScaffoldOptions): string[] {
  const names = pluginNames(options.name);
  const dir = resolve(options.dir);
  const bundled = options.packages !== undefined && resolve(options.packages) === join(dir, 'filigrane-packages');
  // The one thing allowed in the folder: the tarballs packed for it (`filigrane plugin new` from a checkout).
  if (existsSync(dir) && readdirSync(dir).some((entry) => !(bundled && entry === 'filigrane-packages'))) throw new Error(`${dir} is not empty: scaffold into a new folder`);
  const devDependencies: Record<string, string> = { ...TOOLCHAIN, '@filigrane/plugin-api': `^${PLUGIN_API_VERSION}`, '@filigrane/testing': '0.1.0', '@filigrane/tsconfig': '0.1.0' };
  for (const name of TEST_PLUGIN_PACKAGES) devDependencies[name] = '0.1.0';
  const direct = [...PUBLIC_PACKAGES, ...TEST_PLUGIN_PACKAGES];
  let overrides: Record<string, string> | undefined;
  let packagesNote = '';
  if (options.packages) {
    // Installing from tarballs: the public packages by file, their dependencies pinned to theirs.
    // Tarballs inside the plugin's folder are named relatively, so the folder can move.
    const tarballs = Object.fromEntries(Object.entries(packedPackages(options.packages)).map(([name, file]) => [name, bundled ? `./${relative(dir, file)}` : file]));
    for (const name of direct) devDependencies[name] = `file:${tarballs[name]}`;
    overrides = Object.fromEntries(Object.entries(tarballs).filter(([name]) => !direct.includes(name)).map(([name, file]) => [name, `file:${file}`]));
    const where = bundled ? 'filigrane-packages/' : resolve(options.packages);
    packagesNote = `\nFiligrane's packages come from the tarballs in \`${where}\` (packed from a Filigrane checkout by\n\`npx filigrane plugin new\` or \`npx filigrane pack --out <folder>\`): \`devDependencies\` and \`overrides\`\nin package.json name them. Once they are on a registry, replace those \`file:\` specs by versions.\n`;
  }
  const written: string[] = [];
  for (const file of templateFiles(TEMPLATE_DIR)) {
    const target = join(dir, render(relative(TEMPLATE_DIR, file), names).replace(/\.tmpl$/, '').replace(/^(gitignore|dependency-cruiser\.cjs)$/, '.$1'));
    let text = render(readFileSync(file, 'utf8'), names);
    if (target.endsWith('package.json')) {
      text = text.replace('__DEV_DEPENDENCIES__', JSON.stringify(Object.fromEntries(Object.entries(devDependencies).sort()), null, 4).replace(/\n}/, '\n  }'));
      if (overrides) {
        const pkg = JSON.parse(text) as Record<string, unknown>;
        pkg.overrides = overrides;
        text = JSON.stringify(pkg, null, 2) + '\n';
      }
    }
    text = text.replace('__PACKAGES_NOTE__', packagesNote);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    written.push(relative(dir, target));
  }
  return written.sort();
}
