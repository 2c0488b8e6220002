// What Filigrane loads when FILIGRANE_PLUGINS names this package: its default export.
export { feedSourcePlugin as default, feedSourcePlugin } from './feed-source.plugin.js';
