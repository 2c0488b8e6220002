import { CORE_SETTINGS, settingsTable, type FiligranePlugin } from '@filigrane/core';
import { GATEWAY_SETTINGS } from '@filigrane/server';
import { defaultPlugins } from './plugins.js';

/** docs/configuration.md: every setting of the gateway, the platform and the given plugins. */
export function settingsDocument(plugins: FiligranePlugin[] = defaultPlugins()): string {
  const declarations = [GATEWAY_SETTINGS, CORE_SETTINGS, ...plugins.flatMap((p) => (p.settings ? [p.settings] : []))];
  return [
    '# Configuration',
    '',
    'Every setting is an environment variable, declared by the gateway, the platform (`core`) or the plugin',
    'that reads it, parsed and checked at boot (a bad value stops the boot naming its owner and variable).',
    'This file is generated: `npx filigrane settings > docs/configuration.md` (a test checks it is current).',
    'Third-party plugins loaded by FILIGRANE_PLUGINS add their own rows to `filigrane settings`.',
    '',
    settingsTable(declarations),
  ].join('\n');
}
