import Module from 'node:module';
import { sep } from 'node:path';

/**
 * Packages a plugin must share with the server: a second copy of any of them would mean a second
 * DI container class, TypeORM metadata store or GraphQL realm. A plugin loaded from its own folder
 * (FILIGRANE_PLUGINS=./my-plugin, with its own node_modules for its tests) gets the server's copy.
 */
const SHARED = ['@filigrane/plugin-api', '@filigrane/core', 'inversify', 'reflect-metadata', 'typeorm', 'type-graphql', 'graphql'];

const pluginRoots = new Set<string>();
let installed = false;

const isShared = (request: string) => SHARED.some((name) => request === name || request.startsWith(`${name}/`));
/**
 * First-party plugins' public modules (their tokens, extension points, and the GraphQL object types
 * other plugins add fields to, `@Resolver(() => Match)`): the copy the server loaded, when it has
 * one. The plugin's own copy (a devDependency for its tests) would be other classes: a field added to
 * its `Match` never reaches the schema, silently. A package the server lacks stays the plugin's own.
 */
const isFirstPartyPlugin = (request: string) => /^@filigrane\/plugin-[^/]+$/.test(request);

type Resolve = (request: string, parent: Module | undefined, isMain: boolean, options?: unknown) => string;

/** From now on, requests for shared packages from files under `root` resolve from the server. */
export function shareHostModules(root: string): void {
  pluginRoots.add(root.endsWith(sep) ? root : root + sep);
  if (installed) return;
  installed = true;
  const internal = Module as unknown as { _resolveFilename: Resolve };
  const original = internal._resolveFilename;
  internal._resolveFilename = function (request, parent, isMain, options) {
    const from = parent?.filename;
    if (from && (isShared(request) || isFirstPartyPlugin(request)) && [...pluginRoots].some((r) => from.startsWith(r))) {
      try {
        return original.call(this, request, module, isMain, options);
      } catch (err) {
        if (!isFirstPartyPlugin(request)) throw err;
      }
    }
    return original.call(this, request, parent, isMain, options);
  };
}
