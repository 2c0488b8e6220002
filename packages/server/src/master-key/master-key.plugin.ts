import { definePlugin } from '@filigrane/core';
import { MasterKeyCheck1763900000000 } from './master-key.migration.js';

/** Built into the gateway: the check value that ties the database to its master key (master-key.ts). */
export const masterKeyPlugin = definePlugin({
  id: 'master-key',
  migrations: [MasterKeyCheck1763900000000],
});
