import { Arg, Int, Resolver, Root, Subscription } from 'type-graphql';
import { CrawlProgressEvent, eventSubscription, JobFinishedEvent, JobKind, MatchEvent, MatchEventKind, type EventPayloads, type LiveEvent } from '@filigrane/core';

const num = (v: unknown) => (typeof v === 'number' ? v : v === null || v === undefined || v === '' ? null : Number(v));
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));

/** GraphQL subscriptions (graphql-ws on /graphql): matches, crawl progress, finished jobs; plugins add theirs the same way. */
@Resolver()
export class LiveEventsResolver {
  @Subscription(() => MatchEvent, {
    description: 'Matches of the account as they are found (created) or seen again (updated); `kinds` narrows to one of them.',
    subscribe: eventSubscription([MatchEventKind.CREATED, MatchEventKind.UPDATED]),
  })
  matchEvents(@Root() event: LiveEvent, @Arg('kinds', () => [MatchEventKind], { nullable: true }) _kinds?: MatchEventKind[]): MatchEvent {
    const d = event.data as unknown as EventPayloads['match.created'];
    return {
      eventId: event.id,
      kind: event.type as MatchEventKind,
      occurredAt: event.occurredAt,
      matchId: String(d.id),
      matchKind: d.kind,
      source: d.source,
      mediaId: str(d.media_id),
      watermarked: Boolean(d.watermarked),
      pageUrl: d.page_url,
      imageUrl: d.image_url,
      host: d.host,
      sessionId: num(d.session_id),
      credit: d.credit,
      site: d.site ? { domain: d.site.domain, country: d.site.country } : null,
    };
  }

  @Subscription(() => CrawlProgressEvent, {
    description: 'Crawl batches as they are written (done or failed), of every session or of one.',
    subscribe: eventSubscription<{ sessionId?: number | null }>(['crawl.batch.created'], (e, args) => args.sessionId === undefined || args.sessionId === null || Number(e.data.session_id) === args.sessionId),
  })
  crawlProgress(@Root() event: LiveEvent, @Arg('sessionId', () => Int, { nullable: true }) _sessionId?: number): CrawlProgressEvent {
    const d = event.data as unknown as EventPayloads['crawl.batch.created'];
    return {
      eventId: event.id,
      occurredAt: event.occurredAt,
      sessionId: Number(d.session_id),
      batchId: Number(d.batch_id),
      crawlCycle: Number(d.crawl_cycle),
      state: d.state,
      url: d.url,
      images: num(d.images),
      videos: num(d.videos),
      documents: num(d.documents),
      pages: num(d.pages),
    };
  }

  @Subscription(() => JobFinishedEvent, {
    description: 'Searches, watermarkings and press issues as they finish; `kinds` narrows to some of them.',
    subscribe: eventSubscription([JobKind.SEARCH, JobKind.WATERMARKING, JobKind.PRESS]),
  })
  jobFinished(@Root() event: LiveEvent, @Arg('kinds', () => [JobKind], { nullable: true }) _kinds?: JobKind[]): JobFinishedEvent {
    const d = event.data;
    const error = d.error && typeof d.error === 'object' ? ((d.error as { details?: unknown }).details ?? JSON.stringify(d.error)) : d.error;
    return {
      eventId: event.id,
      occurredAt: event.occurredAt,
      kind: event.type as JobKind,
      id: str(d.id),
      status: String(d.status ?? 'done'),
      name: str(event.type === JobKind.SEARCH ? (d.type ?? d.name) : d.name),
      matchCount: num(d.match_count ?? d.matches),
      error: str(error),
    };
  }
}
