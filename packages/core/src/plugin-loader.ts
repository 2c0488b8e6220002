import { CORE_API_VERSION, type FiligranePlugin } from './plugin.js';

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
        throw new PluginConfigError(`plugin "${p.id}" requires plugin "${req}", which is not loaded`);
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

/**
 * Refuses a plugin built for another core API (a different major version), or one that does not
 * say which it was built for: the error names the plugin and what it declared.
 */
export function checkCoreApi(plugin: FiligranePlugin, origin: string): void {
  const where = `plugin "${plugin.id}" (from ${origin})`;
  if (typeof plugin.coreApi !== 'string' || !/^\d+(\.\d+)?$/.test(plugin.coreApi)) {
    throw new PluginConfigError(`${where} does not declare the core API version it was built for (coreApi: '${CORE_API_VERSION}')`);
  }
  const major = (v: string) => v.split('.')[0];
  const [wantMajor, wantMinor] = plugin.coreApi.split('.').map(Number);
  const [haveMajor, haveMinor] = CORE_API_VERSION.split('.').map(Number);
  if (major(plugin.coreApi) !== major(CORE_API_VERSION) || (wantMajor === haveMajor && (wantMinor ?? 0) > haveMinor)) {
    throw new PluginConfigError(`${where} was built for core API ${plugin.coreApi}, but this Filigrane provides core API ${CORE_API_VERSION}`);
  }
}

/** Is this value a plugin object (what a configured module exports)? */
export function isPlugin(value: unknown): value is FiligranePlugin {
  return typeof value === 'object' && value !== null && typeof (value as FiligranePlugin).id === 'string' && ('coreApi' in value || 'routes' in value || 'contributions' in value || 'bindings' in value);
}
