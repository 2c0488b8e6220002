import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';

// What GraphQL subscriptions deliver (the gateway's `matchEvents`, `crawlProgress`, `jobFinished`).
// In core so that a plugin can add fields to them (`@FieldResolver` on MatchEvent: the match itself).

export enum MatchEventKind {
  CREATED = 'match.created',
  UPDATED = 'match.updated',
}
registerEnumType(MatchEventKind, { name: 'MatchEventKind', description: 'A match found (created) or seen again / changed (updated).' });

export enum JobKind {
  SEARCH = 'search.completed',
  WATERMARKING = 'watermarking.completed',
  PRESS = 'press.issue.processed',
}
registerEnumType(JobKind, { name: 'JobKind', description: 'Long work that ends with an event: searches, watermarking, press issues.' });

@ObjectType('MatchEventSite')
export class MatchEventSite {
  @Field(() => String) domain!: string;
  @Field(() => String, { nullable: true }) country!: string | null;
}

@ObjectType('MatchEvent', { description: 'A match of the account created or updated, delivered once its transaction committed.' })
export class MatchEvent {
  @Field(() => ID, { description: 'The event (the same on a redelivery).' }) eventId!: string;
  @Field(() => MatchEventKind) kind!: MatchEventKind;
  @Field(() => Date) occurredAt!: Date;
  @Field(() => ID) matchId!: string;
  @Field(() => String, { description: 'web, press or credit.' }) matchKind!: string;
  @Field(() => String, { description: 'What found it: crawler, search, press...' }) source!: string;
  @Field(() => ID, { nullable: true }) mediaId!: string | null;
  @Field(() => Boolean) watermarked!: boolean;
  @Field(() => String, { nullable: true }) pageUrl!: string | null;
  @Field(() => String, { nullable: true }) imageUrl!: string | null;
  @Field(() => String, { nullable: true }) host!: string | null;
  @Field(() => Int, { nullable: true }) sessionId!: number | null;
  @Field(() => String, { nullable: true }) credit!: string | null;
  @Field(() => MatchEventSite, { nullable: true }) site!: MatchEventSite | null;
}

@ObjectType('CrawlProgressEvent', { description: 'A crawl batch written (done or failed): the session\'s progress.' })
export class CrawlProgressEvent {
  @Field(() => ID) eventId!: string;
  @Field(() => Date) occurredAt!: Date;
  @Field(() => Int) sessionId!: number;
  @Field(() => Int) batchId!: number;
  @Field(() => Int) crawlCycle!: number;
  @Field(() => String, { description: 'done or failed.' }) state!: string;
  @Field(() => String) url!: string;
  @Field(() => Int, { nullable: true }) images!: number | null;
  @Field(() => Int, { nullable: true }) videos!: number | null;
  @Field(() => Int, { nullable: true }) documents!: number | null;
  @Field(() => Int, { nullable: true }) pages!: number | null;
}

@ObjectType('JobFinishedEvent', { description: 'A search, a watermarking or a press issue finished.' })
export class JobFinishedEvent {
  @Field(() => ID) eventId!: string;
  @Field(() => Date) occurredAt!: Date;
  @Field(() => JobKind) kind!: JobKind;
  @Field(() => ID, { nullable: true, description: 'The search, watermarking or press issue (null for a synchronous search).' }) id!: string | null;
  @Field(() => String, { description: 'complete, failed, done...' }) status!: string;
  @Field(() => String, { nullable: true, description: 'The search type, or the press issue\'s name.' }) name!: string | null;
  @Field(() => Int, { nullable: true, description: 'Matches found (searches and press issues).' }) matchCount!: number | null;
  @Field(() => String, { nullable: true }) error!: string | null;
}
