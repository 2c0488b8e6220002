import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { returnedRows, TOKENS, type Clock, type EventPublisher, type Sighting } from '@filigrane/core';
import type { SightedImage, VideoAlignment } from './match.entity.js';
import { siteOf } from './site-info.js';

export interface RecordedMatch {
  id: number;
  created: boolean;
}

export interface MatchInput {
  sighting: Sighting;
  /** The registered media found; null for a credit match (kind credit). */
  mediaId: number | null;
  /** The kind recorded: the sighting's own (web, press) unless this is its credit match. */
  kind?: Sighting['kind'];
  watermarked: boolean;
  exclusive: boolean | null;
  query: { width: number | null; height: number | null; format: string | null; md5?: string | null };
  /** Video matches: the aligned time ranges. */
  video?: VideoAlignment;
  /** Where the copy and the original overlap (corners in fractions of each image), when known. */
  region?: MatchRegionValue | null;
}

/** The matched region: each image's outline in the other, four corners x0,y0..x3,y3 in fractions of width and height. */
export interface MatchRegionValue {
  copy: number[];
  original: number[];
}

/** The image as seen, as the match keeps it (crawl_date is kept from the first sighting on update). */
export function sightedImage(s: Sighting, query: MatchInput['query'], seenAt: Date): SightedImage {
  return {
    url: s.imageUrl ?? s.image.url ?? null,
    type: s.kind === 'press' ? 'press' : 'web',
    width: query.width,
    height: query.height,
    format: query.format,
    thumbnail: s.image.thumbnail ?? null,
    credit: s.credit ?? null,
    md5: query.md5 ?? null,
    crawl_date: seenAt.toISOString(),
    page_url: s.page?.url ?? null,
    last_modified_date: s.image.lastModified?.toISOString() ?? null,
  };
}

/**
 * Stores matches. A repeated sighting of the same image of the same media on the same page
 * updates the existing match (date, sessions, watermark evidence) instead of adding another.
 */
@injectable()
export class MatchRecorder {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.Events) private readonly events: EventPublisher,
  ) {}

  /**
   * The account-deleted hook: every match of the account (credit matches, which no media holds, too),
   * a batch at a time so that a large account never holds one huge transaction. Idempotent.
   */
  async forgetAccount(accountId: number): Promise<void> {
    for (;;) {
      const gone = returnedRows(await this.db.query('DELETE FROM matches WHERE id IN (SELECT id FROM matches WHERE account_id = $1 LIMIT 5000) RETURNING id', [accountId]));
      if (gone.length < 5000) return;
    }
  }

  private async siteId(url: string | undefined, given: Sighting['site']): Promise<{ id: number | null; host: string | null; domain: string | null; country: string | null }> {
    // A source that knows the site (a publication, for the press) names it; otherwise the URL does.
    const named = given?.domain
      ? (siteOf(`https://${given.domain}/`, given) ?? { host: given.domain, domain: given.domain, suffix: '', name: given.name ?? given.domain, country: given.country?.toUpperCase() ?? null })
      : null;
    const site = named ?? (url ? siteOf(url, given ?? {}) : null);
    if (!site) return { id: null, host: null, domain: null, country: null };
    const rows: { id: number; country: string | null }[] = await this.db.query(
      `INSERT INTO sites (domain, name, suffix, country) VALUES ($1, $2, $3, $4)
       ON CONFLICT (domain) DO UPDATE SET country = COALESCE(sites.country, EXCLUDED.country)
       RETURNING id, country`,
      [site.domain, site.name, site.suffix, site.country],
    );
    return { id: rows[0]!.id, host: site.host, domain: site.domain, country: rows[0]!.country ?? null };
  }

  async record(input: MatchInput): Promise<RecordedMatch> {
    const s = input.sighting;
    const now = s.seenAt ?? this.clock.now();
    const { id: siteId, host, domain, country } = await this.siteId(s.page?.url ?? s.imageUrl, s.site);
    const page = s.page
      ? {
          type: s.page.type ?? (s.kind === 'press' ? 'article' : 'web'),
          headline: s.page.headline ?? null,
          description: s.page.description ?? null,
          author: s.page.author ?? null,
          date_modified: s.page.dateModified?.toISOString() ?? null,
          date_published: s.page.datePublished?.toISOString() ?? null,
        }
      : {};
    // The match and its match.* event commit together (the platform's outbox): a crash after the
    // insert can never lose the webhook or the notification.
    const recorded = await this.db.transaction(async (tx) => {
      const rows: { id: string; created: boolean }[] = await tx.query(
        `INSERT INTO matches (account_id, media_id, kind, source, watermarked, exclusive, sessions, site_id, host, page_url, page,
                              page_date_published, query_url, query_width, query_height, query_format, press, credit, image, video, region, date_created, date_updated)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $20, $21, $22, $19, $19)
         ON CONFLICT ON CONSTRAINT matches_sighting_key DO UPDATE SET
           watermarked = matches.watermarked OR EXCLUDED.watermarked,
           sessions = ARRAY(SELECT DISTINCT unnest(matches.sessions || EXCLUDED.sessions) ORDER BY 1),
           page = EXCLUDED.page,
           page_date_published = COALESCE(EXCLUDED.page_date_published, matches.page_date_published),
           query_width = EXCLUDED.query_width, query_height = EXCLUDED.query_height, query_format = EXCLUDED.query_format,
           credit = COALESCE(EXCLUDED.credit, matches.credit),
           video = COALESCE(EXCLUDED.video, matches.video),
           region = COALESCE(EXCLUDED.region, matches.region),
           image = EXCLUDED.image || jsonb_build_object('crawl_date', COALESCE(matches.image->'crawl_date', to_jsonb(matches.date_created))),
           date_updated = EXCLUDED.date_updated
         RETURNING id, (xmax = 0) AS created`,
        [
          s.accountId, input.mediaId, input.kind ?? s.kind, s.source, input.watermarked, input.exclusive, s.sessionId !== undefined ? [s.sessionId] : [],
          siteId, host, s.page?.url ?? '', page, s.page?.datePublished ?? null, s.imageUrl ?? '', input.query.width, input.query.height,
          input.query.format, s.press ?? null, s.credit ?? null, now, sightedImage(s, input.query, now), input.video ?? null, input.region ?? null,
        ],
      );
      const recorded = { id: Number(rows[0]!.id), created: rows[0]!.created };
      await this.events.enqueue({
        type: recorded.created ? 'match.created' : 'match.updated',
        accountId: s.accountId,
        occurredAt: now,
        data: {
          id: String(recorded.id), kind: input.kind ?? s.kind, source: s.source, media_id: input.mediaId === null ? null : String(input.mediaId),
          watermarked: input.watermarked, page_url: s.page?.url ?? null, image_url: s.imageUrl ?? null, host, session_id: s.sessionId ?? null, credit: s.credit ?? null,
          site: domain ? { domain, country } : null,
        },
      }, tx, { key: `match:${recorded.id}` });
      return recorded;
    });
    // After the commit: a worker delivers the event (webhooks, notifications); the source never waits for listeners.
    await this.events.flush();
    return recorded;
  }
}
