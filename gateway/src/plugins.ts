import type { FiligranePlugin } from '@filigrane/core';
import { accountPlugin } from '@filigrane/plugin-account';
import { authPlugin } from '@filigrane/plugin-auth';
import { blacklistPlugin } from '@filigrane/plugin-blacklist';
import { crawlerPlugin } from '@filigrane/plugin-crawler';
import { matchesPlugin } from '@filigrane/plugin-matches';
import { mediaPlugin } from '@filigrane/plugin-media';
import { searchPlugin } from '@filigrane/plugin-search';
import { watermarkingPlugin } from '@filigrane/plugin-watermarking';

/** The plugins `filigrane start` loads. Order does not matter: `requires` decides. */
export function defaultPlugins(): FiligranePlugin[] {
  return [authPlugin, accountPlugin, blacklistPlugin, mediaPlugin, matchesPlugin, searchPlugin, watermarkingPlugin, crawlerPlugin];
}
