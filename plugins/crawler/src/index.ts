export { crawlerPlugin } from './crawler.plugin.js';
export { CrawlService, CRAWL_QUEUE } from './crawl.service.js';
export { crawlerSource } from './crawler-source.js';
export { crawlLog } from './batch-writer.service.js';
export { CrawlSession, CrawlBatch } from './crawler.resolver.js';
export { CRAWL_ARCHIVE, type CrawlArchive, type ArchivedFetch } from './crawl-archive.service.js';
