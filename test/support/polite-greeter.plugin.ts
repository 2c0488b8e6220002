// Contributes to the greeting plugin's extension point without importing that plugin.
import { contribute, definePlugin } from '@filigrane/core';
import { GREETERS } from './greeters.js';

export const politeGreeterPlugin = definePlugin({
  id: 'polite-greeter',
  contributions: [contribute(GREETERS, () => (name: string) => `Good morning, ${name}`)],
});
