import type { FiligranePlugin } from '@filigrane/core';
import { configuredPlugins } from '@filigrane/server';
import { aggregationsPlugin } from '@filigrane/plugin-aggregations';
import { accountPlugin } from '@filigrane/plugin-account';
import { authPlugin } from '@filigrane/plugin-auth';
import { blacklistPlugin } from '@filigrane/plugin-blacklist';
import { crawlerPlugin } from '@filigrane/plugin-crawler';
import { matchesPlugin } from '@filigrane/plugin-matches';
import { mediaPlugin } from '@filigrane/plugin-media';
import { pressPlugin } from '@filigrane/plugin-press';
import { searchPlugin } from '@filigrane/plugin-search';
import { watermarkingPlugin } from '@filigrane/plugin-watermarking';
import { webhooksPlugin } from '@filigrane/plugin-webhooks';
import { notificationsPlugin } from '@filigrane/plugin-notifications';
import { reviewPlugin } from '@filigrane/plugin-review';
import { casesPlugin } from '@filigrane/plugin-cases';
import { evidencePlugin } from '@filigrane/plugin-evidence';
import { consolePlugin } from './console/console.plugin.js';

/** The first-party plugins. Order does not matter: `requires` decides. */
export function firstPartyPlugins(): FiligranePlugin[] {
  return [authPlugin, accountPlugin, blacklistPlugin, mediaPlugin, matchesPlugin, aggregationsPlugin, searchPlugin, watermarkingPlugin, pressPlugin, webhooksPlugin, notificationsPlugin, crawlerPlugin, reviewPlugin, casesPlugin, evidencePlugin];
}

/** The plugins `filigrane start` loads: the console (served at `/`) and the first-party plugins. */
export function defaultPlugins(): FiligranePlugin[] {
  return [consolePlugin(), ...firstPartyPlugins()];
}

/** The built-in plugins and those FILIGRANE_PLUGINS names. */
export async function pluginsFromConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Promise<FiligranePlugin[]> {
  return [...defaultPlugins(), ...(await configuredPlugins(env, cwd))];
}
