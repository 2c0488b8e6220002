export { blacklistPlugin } from './blacklist.plugin.js';
export { BlacklistService } from './blacklist.service.js';
export { normaliseDomain, domainAndParents } from './domain-name.js';
