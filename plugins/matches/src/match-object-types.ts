import { Field, Float, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { MediaObject, RegisteredVideoObject } from '@filigrane/plugin-media';

// The GraphQL object types of matches: the REST views with camelCase keys (match-view.ts decides
// what a match holds). Exported by the plugin's public module so other plugins add fields
// (`@Resolver(() => Match)` with a `@FieldResolver`, e.g. a review state).

@ObjectType('MatchSite', { description: 'The site a match was found on (registrable domain, suffix, country).' })
export class MatchSite {
  @Field(() => Int) id!: number;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) domain!: string | null;
  @Field(() => String, { nullable: true }) suffix!: string | null;
  @Field(() => String, { nullable: true, description: 'ISO 3166-1 alpha-2, when known.' }) country!: string | null;
}

@ObjectType('MatchPageImage')
export class MatchPageImage {
  @Field(() => String, { nullable: true, description: 'The image as found on the page.' }) url!: string | null;
}

@ObjectType('MatchWebPage', { description: 'The page a match was found on, with what it says about itself.' })
export class MatchWebPage {
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field(() => String, { nullable: true }) type!: string | null;
  @Field(() => MatchPageImage) image!: MatchPageImage;
  @Field(() => String, { nullable: true }) headline!: string | null;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => String, { nullable: true }) author!: string | null;
  @Field(() => String, { nullable: true }) dateModified!: string | null;
  @Field(() => String, { nullable: true }) datePublished!: string | null;
}

@ObjectType('MatchMedia', { description: 'The registered media a v4 match is a copy of.' })
export class MatchMedia {
  @Field(() => String) id!: string;
  @Field(() => String, { description: 'image, video or other' }) type!: string;
  @Field(() => String) thumbnail!: string;
  @Field(() => String) image!: string;
  @Field(() => String) path!: string;
  @Field(() => String) dateRegistered!: string;
  @Field(() => String, { nullable: true }) credit!: string | null;
  @Field(() => GraphQLJSONObject, { description: "The user's metadata (user.* keys), as set." }) userMetadata!: Record<string, unknown>;
}

@ObjectType('MatchRegion', { description: 'Where the copy and the original overlap: each image\'s outline in the other, as four corners x0, y0 ... x3, y3 in fractions of that image\'s width and height (outside 0..1 where one image extends beyond the other).' })
export class MatchRegion {
  @Field(() => [Float], { description: 'The original\'s outline in the copy found.' }) copy!: number[];
  @Field(() => [Float], { description: 'The copy\'s outline in the registered original.' }) original!: number[];
}

@ObjectType('Match', { description: 'A v4 match: a registered media found somewhere (GET /api/v4/matches/<id>/).' })
export class Match {
  @Field(() => String) id!: string;
  @Field(() => String) url!: string;
  @Field(() => String) dateCreated!: string;
  @Field(() => String) dateUpdated!: string;
  @Field(() => Boolean) export!: boolean;
  @Field(() => Boolean) watermarked!: boolean;
  @Field(() => [String]) tags!: string[];
  @Field(() => [Int]) sessions!: number[];
  @Field(() => MatchSite, { nullable: true }) site!: MatchSite | null;
  @Field(() => MatchWebPage) page!: MatchWebPage;
  @Field(() => MatchRegion, { nullable: true, description: 'The matched region on both images, in each image\'s own coordinates (a mirrored copy too). Null for matches recorded before it was kept, credit matches (a photographer\'s credit, no picture) and video matches (frames are matched by index votes, no geometry).' })
  region!: MatchRegion | null;
  /** The registered media's id (for field resolvers: `media` and other plugins' relations). */
  mediaId!: number | null;
  /** The account the match belongs to (field resolvers read on its behalf). */
  accountId!: number;
}

@ObjectType('MatchPage', { description: 'A page of v4 matches, newest first, with cursors.' })
export class MatchPage {
  @Field(() => Int) count!: number;
  @Field(() => String, { nullable: true, description: 'Cursor of the next page' }) next!: string | null;
  @Field(() => String, { nullable: true, description: 'Cursor of the previous page' }) previous!: string | null;
  @Field(() => [Match]) results!: Match[];
}

@ObjectType('V3MatchImage', { description: 'The image of a v3 match: as seen (type web or press) or the registered one (type registered).' })
export class V3MatchImage {
  @Field(() => String, { nullable: true }) url!: string | null;
  @Field(() => String) type!: string;
  @Field(() => Int, { nullable: true }) width!: number | null;
  @Field(() => Int, { nullable: true }) height!: number | null;
  @Field(() => String, { nullable: true }) format!: string | null;
  @Field(() => String, { nullable: true }) thumbnail!: string | null;
  @Field(() => String, { nullable: true }) credit!: string | null;
  @Field(() => String, { nullable: true }) md5?: string | null;
  @Field(() => String, { nullable: true }) crawlDate?: string | null;
  @Field(() => String, { nullable: true }) pageUrl?: string | null;
  @Field(() => String, { nullable: true }) lastModifiedDate?: string | null;
  @Field(() => String, { nullable: true }) mediaPath?: string | null;
  @Field(() => String, { nullable: true }) mediaUrl?: string | null;
}

@ObjectType('V3PressIssueRef')
export class V3PressIssueRef {
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) date!: string | null;
}

@ObjectType('V3Match', { description: 'A v3 match (GET /api/v3/matches/<type>/): fields of another type are null.' })
export class V3Match {
  @Field(() => Float, { description: 'An integer.' }) id!: number;
  @Field(() => String) url!: string;
  @Field(() => String) created!: string;
  @Field(() => String, { description: 'web, press or credit' }) type!: string;
  @Field(() => Boolean, { nullable: true }) watermarked?: boolean;
  @Field(() => Boolean, { nullable: true, description: 'Unknown (null) unless set.' }) exclusive?: boolean;
  @Field(() => V3MatchImage, { nullable: true }) image?: V3MatchImage | null;
  @Field(() => [MediaObject], { nullable: true, description: 'web and press: the registered media.' }) paths?: MediaObject[];
  @Field(() => String, { nullable: true }) queryUrl?: string | null;
  @Field(() => Int, { nullable: true }) queryWidth?: number | null;
  @Field(() => Int, { nullable: true }) queryHeight?: number | null;
  @Field(() => String, { nullable: true }) queryPageUrl?: string | null;
  @Field(() => String, { nullable: true }) queryFormat?: string | null;
  @Field(() => Int, { nullable: true }) sessionId?: number | null;
  @Field(() => String, { nullable: true }) domain?: string | null;
  @Field(() => RegisteredVideoObject, { nullable: true, description: 'Video matches: the registered video.' }) video?: RegisteredVideoObject;
  @Field(() => Float, { nullable: true, description: 'Seconds.' }) queryVideoStartTime?: number;
  @Field(() => Float, { nullable: true }) queryVideoEndTime?: number;
  @Field(() => Float, { nullable: true }) queryVideoMatchDuration?: number;
  @Field(() => Float, { nullable: true }) matchedVideoStartTime?: number;
  @Field(() => Float, { nullable: true }) matchedVideoEndTime?: number;
  @Field(() => Float, { nullable: true }) matchedVideoMatchDuration?: number;
  @Field(() => V3PressIssueRef, { nullable: true, description: 'press: the issue it was printed in.' }) issue?: V3PressIssueRef;
  @Field(() => Int, { nullable: true }) pageNumber?: number | null;
  @Field(() => String, { nullable: true, description: 'credit: the credit line found.' }) credit?: string | null;
  @Field(() => String, { nullable: true }) imageUrl?: string | null;
  @Field(() => String, { nullable: true }) pageUrl?: string | null;
}

@ObjectType('V3MatchPage')
export class V3MatchPage {
  @Field(() => Int) count!: number;
  @Field(() => String, { nullable: true }) next!: string | null;
  @Field(() => String, { nullable: true }) previous!: string | null;
  @Field(() => [V3Match]) results!: V3Match[];
}
