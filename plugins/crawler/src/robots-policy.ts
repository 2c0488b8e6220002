import robotsParser from 'robots-parser';

/** The product token our robots.txt rules are looked up under. */
export const ROBOTS_AGENT = 'Filigrane';

export interface RobotsRules {
  allowed(url: string): boolean;
  /** Crawl-delay for our agent in seconds, or undefined. */
  crawlDelay(): number | undefined;
}

/**
 * robots.txt rules for one origin, read with robots-parser. A missing file (4xx) allows
 * everything; a server error or an unreachable file means "assume disallowed" for this crawl,
 * as Google and RFC 9309 do.
 */
export function robotsRules(origin: string, status: number | null, body: string): RobotsRules {
  if (status === null || status >= 500) return { allowed: () => false, crawlDelay: () => undefined };
  if (status >= 400) return { allowed: () => true, crawlDelay: () => undefined };
  const robots = robotsParser(`${origin}/robots.txt`, body);
  return {
    allowed: (url) => robots.isAllowed(url, ROBOTS_AGENT) !== false,
    crawlDelay: () => robots.getCrawlDelay(ROBOTS_AGENT),
  };
}
