import type { Container, ContainerModule } from 'inversify';
import type { ExtensionPoint } from './extension-point.js';
import type { JobSpec } from './jobs.js';
import type { RouteSpec } from './route.js';

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
}

/**
 * Everything a plugin adds to Filigrane, declared in one object (`<name>.plugin.ts`).
 * The gateway merges entities and migrations into one DataSource, bindings into one container,
 * routes into the REST adapter, resolvers into one GraphQL schema, and jobs into pg-boss.
 */
export interface FiligranePlugin {
  id: string;
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
