import { Field, Float, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ApiErrorBodyObject, apiErrorBodyObject, camelCaseKeys } from '@filigrane/core';
import { RegisteredImageObject, RegisteredVideoObject } from '@filigrane/plugin-media';

// The GraphQL object types of searches: the REST views (search.service.ts `view`, the executors'
// match objects) with camelCase keys. A search match is not a match of the matches plugin (no id,
// site or page: a registered media the query resembles), hence types of its own.

@ObjectType('SearchMatchImage', { description: 'The registered image found (the spec\'s Image object of type registered, with its metadata).' })
export class SearchMatchImage extends RegisteredImageObject {
  @Field(() => GraphQLJSONObject, { nullable: true, description: "The media's user metadata (user.* keys), as set." }) metadata!: Record<string, unknown> | null;
}

@ObjectType('SearchMatchVideo', { description: 'The registered video found (the spec\'s Video object, with its path and metadata).' })
export class SearchMatchVideo extends RegisteredVideoObject {
  @Field(() => String, { nullable: true }) mediaPath!: string | null;
  @Field(() => String, { nullable: true }) mediaUrl!: string | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: "The media's user metadata (user.* keys), as set." }) metadata!: Record<string, unknown> | null;
}

@ObjectType('SearchMatchMedia', { description: 'Text matches: the media found.' })
export class SearchMatchMedia {
  @Field(() => GraphQLJSONObject, { description: "The media's user metadata (user.* keys), as set." }) metadata!: Record<string, unknown>;
  @Field(() => String) mediaPath!: string;
  @Field(() => String) mediaUrl!: string;
}

@ObjectType('SearchQuery', { description: 'A search\'s parameters, echoed (which fields are set depends on the kind of search).' })
export class SearchQuery {
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true, description: 'Image, video and document searches: where in the home.' }) searchPath?: string | null;
  @Field(() => String, { nullable: true, description: 'Image searches: near_duplicate, similar or leaks.' }) mode?: string | null;
  @Field(() => [String], { nullable: true }) categories?: string[] | null;
  @Field(() => [String], { nullable: true }) transforms?: string[] | null;
  @Field(() => Boolean, { nullable: true }) filterMarked?: boolean | null;
  @Field(() => Boolean, { nullable: true }) sync?: boolean | null;
  @Field(() => String, { nullable: true, description: 'Text searches: the file name (or its prefix).' }) filename?: string | null;
  @Field(() => [String], { nullable: true, description: 'Text searches: image, video or folder.' }) type?: string[] | null;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Text searches: the user metadata searched.' }) metadata?: Record<string, unknown> | null;
}

@ObjectType('SearchMatch', { description: 'One match of a search: a registered media (type user: image, video, or in a document) or a text match (type text).' })
export class SearchMatch {
  @Field(() => String, { nullable: true, description: 'Null in search results.' }) id!: string | null;
  @Field(() => String, { description: 'The registration date of the media found.' }) created!: string;
  @Field(() => String, { description: 'user or text' }) type!: string;
  @Field(() => Boolean, { nullable: true }) watermarked?: boolean | null;
  @Field(() => SearchMatchImage, { nullable: true }) image?: SearchMatchImage | null;
  @Field(() => SearchMatchVideo, { nullable: true }) video?: SearchMatchVideo | null;
  @Field(() => SearchQuery, { nullable: true, description: 'Text matches: the query echoed.' }) query?: SearchQuery | null;
  @Field(() => SearchMatchMedia, { nullable: true, description: 'Text matches: the media found.' }) media?: SearchMatchMedia | null;
  @Field(() => [Int], { nullable: true, description: 'Document searches: the pages the image is printed on.' }) pageNumbers?: number[] | null;
  @Field(() => [String], { nullable: true, description: 'Document searches: the credit lines found next to it.' }) credits?: string[] | null;
  @Field(() => Float, { nullable: true, description: 'Video searches: seconds.' }) queryVideoStartTime?: number | null;
  @Field(() => Float, { nullable: true }) queryVideoEndTime?: number | null;
  @Field(() => Float, { nullable: true }) queryVideoMatchDuration?: number | null;
  @Field(() => Float, { nullable: true }) matchedVideoStartTime?: number | null;
  @Field(() => Float, { nullable: true }) matchedVideoEndTime?: number | null;
  @Field(() => Float, { nullable: true }) matchedVideoMatchDuration?: number | null;
}

@ObjectType('SearchResult', { description: 'A search: complete with matches (synchronous), or stored and pollable (asynchronous: id, url, then matches or error).' })
export class SearchResultType {
  @Field(() => String, { nullable: true }) id!: string | null;
  @Field(() => String, { description: 'pending, running, complete or failed' }) status!: string;
  @Field(() => String, { nullable: true, description: 'Stored searches: the REST status URL.' }) url!: string | null;
  @Field(() => [SearchMatch], { nullable: true, description: 'Once complete.' }) matches!: SearchMatch[] | null;
  @Field(() => String, { nullable: true }) name?: string | null;
  @Field(() => String, { nullable: true, description: 'Stored searches: image, text, video or document.' }) type?: string | null;
  @Field(() => String, { nullable: true }) created?: string | null;
  @Field(() => String, { nullable: true }) finished?: string | null;
  @Field(() => SearchQuery, { nullable: true, description: 'Stored searches: the parameters.' }) query?: SearchQuery | null;
  @Field(() => ApiErrorBodyObject, { nullable: true, description: 'Once failed: why.' }) error?: ApiErrorBodyObject | null;
}

/** The GraphQL object of a REST search body (a synchronous result or a stored search's view). */
export function toResult(body: Record<string, unknown>): SearchResultType {
  const optional = (k: string) => (body[k] as string | undefined) ?? null;
  return {
    id: optional('id'),
    status: body.status as string,
    url: optional('url'),
    matches: body.matches ? (body.matches as Record<string, unknown>[]).map((m) => ({ ...camelCaseKeys<SearchMatch>(m), id: m.id === null || m.id === undefined ? null : String(m.id) })) : null,
    name: optional('name'),
    type: optional('type'),
    created: optional('created'),
    finished: optional('finished'),
    query: body.query ? camelCaseKeys<SearchQuery>(body.query) : null,
    error: apiErrorBodyObject(body.error as never),
  };
}
