import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkPluginApi, isPlugin, PluginConfigError, type FiligranePlugin } from '@filigrane/core';
import { shareHostModules } from './shared-modules.js';
import { packageRootOf } from './package-root.js';

/**
 * Third-party plugins named by FILIGRANE_PLUGINS: comma-separated module specifiers (a package
 * name or a path such as `./examples/feed-source`), resolved from the working directory like
 * `require` would. A module exports its plugin as `default`, as `plugin`, or as any named export
 * that is a plugin object. Each must declare `pluginApi` (a semver range); errors name the module
 * and the plugin. The plugin gets the server's copy of the shared packages (shared-modules.ts).
 */
export async function configuredPlugins(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Promise<FiligranePlugin[]> {
  const specifiers = (env.FILIGRANE_PLUGINS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const requireFromCwd = createRequire(join(resolve(cwd), 'noop.js'));
  const loaded: FiligranePlugin[] = [];
  for (const specifier of specifiers) {
    let path: string;
    try {
      path = requireFromCwd.resolve(specifier);
    } catch (err) {
      const reason = (err as Error).message.split('\n')[0];
      // A plugin folder whose package.json names a main file that is not there yet: it was never built.
      const hint = /valid "main" entry/.test(reason) ? ': build the plugin first (`npm run build` in its folder)' : '';
      throw new PluginConfigError(`FILIGRANE_PLUGINS: cannot find plugin module "${specifier}" from ${cwd} (${reason})${hint}`);
    }
    shareHostModules(packageRootOf(path));
    const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
    const plugins = pluginsExportedBy(mod);
    if (plugins.length === 0) throw new PluginConfigError(`FILIGRANE_PLUGINS: module "${specifier}" exports no plugin (export one made with definePlugin)`);
    for (const p of plugins) checkPluginApi(p, `"${specifier}"`);
    loaded.push(...plugins);
  }
  return loaded;
}

/** The plugin objects a module exports: `default`, `plugin` or any named export (ES or CommonJS). */
export function pluginsExportedBy(mod: Record<string, unknown>): FiligranePlugin[] {
  // An ES module's exports, or a CommonJS module's `module.exports` (which import() puts on default).
  const scopes = [mod, ...(typeof mod.default === 'object' && mod.default !== null ? [mod.default as Record<string, unknown>] : [])];
  const candidates = scopes.flatMap((scope) => [scope.default, scope.plugin, ...Object.values(scope)]).flat();
  return [...new Set(candidates.filter(isPlugin))];
}
