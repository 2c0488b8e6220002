import type { Container, ContainerModule } from 'inversify';
import type { ExtensionPoint } from './extension-point.js';
import type { JobSpec } from './jobs.js';
import type { RouteSpec } from './route.js';
import type { SettingsDeclaration } from './settings.js';
import type { Logger } from './logger.js';

/**
 * The version of the public plugin API (`@filigrane/plugin-api`, semver; CHANGELOG.md in that
 * package). A plugin declares the range it works with (`pluginApi: '^1.1.0'`); a version outside
 * it stops the boot. Minor: additions only; major: anything a plugin could notice breaking.
 */
export const PLUGIN_API_VERSION = '1.4.0';

/** @deprecated the major.minor of PLUGIN_API_VERSION, for plugins that still declare `coreApi`. */
export const CORE_API_VERSION = PLUGIN_API_VERSION.split('.').slice(0, 2).join('.');

/** A contribution to another plugin's extension point, built once the container exists. */
export interface Contribution<T = unknown> {
  point: ExtensionPoint<T>;
  create(container: Container): T;
}

export function contribute<T>(point: ExtensionPoint<T>, create: (container: Container) => T): Contribution<T> {
  return { point, create } as Contribution<T>;
}

export interface PluginContext {
  container: Container;
  log(message: string): void;
  /** This plugin's logger (lines carry the plugin id). */
  logger: Logger;
}

/**
 * Everything a plugin adds to Filigrane, declared in one object (`<name>.plugin.ts`).
 * The gateway merges entities and migrations into one DataSource, bindings into one container,
 * routes into the REST adapter, resolvers into one GraphQL schema, and jobs into pg-boss.
 */
export interface FiligranePlugin {
  id: string;
  /**
   * The semver range of the plugin API this plugin works with, for example '^1.1.0'. Required of
   * plugins loaded by configuration (FILIGRANE_PLUGINS), checked for every plugin that declares it.
   */
  pluginApi?: string;
  /** @deprecated use `pluginApi`; 'X.Y' is read as the range '^X.Y.0'. */
  coreApi?: string;
  /** The environment settings the plugin reads, parsed and validated at boot (see settings.ts). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  settings?: SettingsDeclaration<any>;
  /** Plugin ids that must be loaded too (checked at boot). */
  requires?: string[];
  // TypeORM entity classes and migration classes.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: Function[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations?: Function[];
  bindings?: ContainerModule;
  routes?: RouteSpec[];
  /** type-graphql resolver classes; resolved from the container. */
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  resolvers?: Function[];
  // `never`: each plugin types its own job data.
  jobs?: (container: Container) => JobSpec<never>[];
  /** Extension points this plugin owns (others contribute, this plugin reads them). */
  extensionPoints?: ExtensionPoint<unknown>[];
  contributions?: Contribution[];
  onStart?(ctx: PluginContext): Promise<void>;
  onStop?(ctx: PluginContext): Promise<void>;
}

export function definePlugin(plugin: FiligranePlugin): FiligranePlugin {
  return plugin;
}
