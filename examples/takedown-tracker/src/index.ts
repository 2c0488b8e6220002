export { takedownPlugin as default, takedownPlugin, OVERDUE_QUEUE } from './takedown.plugin.js';
