import semver from 'semver';
import { PLUGIN_API_VERSION, type FiligranePlugin } from './plugin.js';

export class PluginConfigError extends Error {
  override name = 'PluginConfigError';
}

/**
 * Checks a plugin list and returns it in dependency order: required plugins first.
 * Throws a PluginConfigError naming the culprit on a duplicate id, a missing required plugin,
 * a dependency cycle or an entity name declared twice.
 */
export function resolvePlugins(plugins: FiligranePlugin[]): FiligranePlugin[] {
  const byId = new Map<string, FiligranePlugin>();
  for (const p of plugins) {
    if (byId.has(p.id)) throw new PluginConfigError(`plugin "${p.id}" is loaded twice`);
    byId.set(p.id, p);
  }
  for (const p of plugins) {
    for (const req of p.requires ?? []) {
      if (!byId.has(req)) {
        // Say what is loaded (a misspelt id shows) and how a plugin gets loaded (the operator's next step).
        const loaded = [...byId.keys()].sort().join(', ');
        throw new PluginConfigError(
          `plugin "${p.id}" requires plugin "${req}", which is not loaded (loaded: ${loaded}): install the package providing "${req}" and name it in FILIGRANE_PLUGINS, or remove "${p.id}"`,
        );
      }
    }
  }

  const ordered: FiligranePlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (p: FiligranePlugin, trail: string[]) => {
    const s = state.get(p.id);
    if (s === 'done') return;
    if (s === 'visiting') throw new PluginConfigError(`plugin dependency cycle: ${[...trail, p.id].join(' -> ')}`);
    state.set(p.id, 'visiting');
    for (const req of p.requires ?? []) visit(byId.get(req)!, [...trail, p.id]);
    state.set(p.id, 'done');
    ordered.push(p);
  };
  for (const p of plugins) visit(p, []);

  for (const p of ordered) checkPluginApi(p, 'the plugin list', false);
  const entityOwner = new Map<string, string>();
  for (const p of ordered) {
    for (const entity of p.entities ?? []) {
      const owner = entityOwner.get(entity.name);
      if (owner) {
        throw new PluginConfigError(`entity name "${entity.name}" is declared by both plugin "${owner}" and plugin "${p.id}"`);
      }
      entityOwner.set(entity.name, p.id);
    }
  }
  return ordered;
}

/** The range a plugin declares (`pluginApi`, or the deprecated `coreApi: 'X.Y'` read as '^X.Y.0'). */
function declaredRange(plugin: FiligranePlugin): string | undefined {
  if (typeof plugin.pluginApi === 'string') return plugin.pluginApi;
  if (typeof plugin.coreApi === 'string' && /^\d+(\.\d+)?$/.test(plugin.coreApi)) return `^${semver.coerce(plugin.coreApi)!.version}`;
  return undefined;
}

/**
 * Refuses a plugin whose declared plugin API range does not hold this Filigrane's version, or one
 * that declares none (`required`: plugins loaded by configuration): the error names the plugin.
 */
export function checkPluginApi(plugin: FiligranePlugin, origin: string, required = true): void {
  const where = `plugin "${plugin.id}" (from ${origin})`;
  const range = declaredRange(plugin);
  if (range === undefined) {
    if (!required && plugin.pluginApi === undefined && plugin.coreApi === undefined) return;
    throw new PluginConfigError(`${where} does not declare the plugin API range it works with (pluginApi: '^${PLUGIN_API_VERSION}')`);
  }
  if (semver.validRange(range) === null) throw new PluginConfigError(`${where} declares pluginApi "${range}", which is not a semver range (for example '^${PLUGIN_API_VERSION}')`);
  if (!semver.satisfies(PLUGIN_API_VERSION, range)) {
    throw new PluginConfigError(`${where} needs plugin API ${range}, but this Filigrane provides plugin API ${PLUGIN_API_VERSION}: install a version of the plugin built for it`);
  }
}

/** @deprecated checkPluginApi. */
export const checkCoreApi = (plugin: FiligranePlugin, origin: string): void => checkPluginApi(plugin, origin);

/** Is this value a plugin object (what a configured module exports)? */
export function isPlugin(value: unknown): value is FiligranePlugin {
  return typeof value === 'object' && value !== null && typeof (value as FiligranePlugin).id === 'string' && ('pluginApi' in value || 'coreApi' in value || 'routes' in value || 'contributions' in value || 'bindings' in value);
}
