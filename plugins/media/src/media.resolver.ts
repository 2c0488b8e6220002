import { inject, injectable } from 'inversify';
import { Arg, Ctx, Field, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { badRequest, graphqlPageSize, notFound, pageRequest, requirePrincipal, type GraphQLContext } from '@filigrane/core';
import { inputOf } from './registration.service.js';
import { resolveUrl } from './url-resolver.js';
import { RegistrationService } from './registration.service.js';
import type { MediaRecord } from '@filigrane/core';
import { MediaService } from './media.service.js';
import { parseMediaPath } from './media-path.js';
import { fileUrl, imageView, mediaUrl, videoView } from '@filigrane/core';
import { parseMetadata } from '@filigrane/core';

@ObjectType('RegisteredImage')
export class ImageType {
  @Field(() => String) url!: string;
  @Field(() => String) type!: string;
  @Field(() => Int, { nullable: true }) width!: number | null;
  @Field(() => Int, { nullable: true }) height!: number | null;
  @Field(() => String, { nullable: true }) format!: string | null;
  @Field(() => String, { nullable: true }) thumbnail!: string | null;
  @Field(() => String, { nullable: true }) credit!: string | null;
  @Field(() => String) mediaPath!: string;
  @Field(() => String) mediaUrl!: string;
}

@ObjectType('RegisteredVideo')
export class VideoType {
  @Field(() => String) url!: string;
  @Field(() => String) type!: string;
  @Field(() => Int, { nullable: true }) width!: number | null;
  @Field(() => Int, { nullable: true }) height!: number | null;
  @Field(() => String) thumbnail!: string;
  @Field(() => Number, { nullable: true, description: 'Seconds.' }) duration!: number | null;
  @Field(() => String, { nullable: true }) format!: string | null;
  @Field(() => String, { description: 'The stored file, served with HTTP Range support (no transcoding).' }) streamingUrl!: string;
  @Field(() => String, { nullable: true, description: 'Fingerprinting: pending, ready (searchable) or failed.' }) status!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
}

@ObjectType('Media')
export class MediaType {
  @Field(() => String) id!: string;
  @Field(() => String) url!: string;
  @Field(() => String) path!: string;
  @Field(() => String) name!: string;
  @Field(() => Date) created!: Date;
  @Field(() => Int) diskUsage!: number;
  @Field(() => String) type!: string;
  @Field(() => String, { nullable: true, description: 'The spec\'s top-level thumbnail URL (null for a folder); `@signedUrls` on the operation signs it for <img>.' }) thumbnail!: string | null;
  @Field(() => GraphQLJSONObject) metadata!: Record<string, unknown>;
  @Field(() => ImageType, { nullable: true }) image!: ImageType | null;
  @Field(() => VideoType, { nullable: true }) video!: VideoType | null;
  @Field(() => Boolean, { nullable: true }) exclusive!: boolean | null;
  @Field(() => Boolean, { description: 'Registered from a registration file (watermark detection runs).' }) watermarked!: boolean;
}

@ObjectType('MediaFolder')
class FolderType {
  @Field(() => MediaType) folder!: MediaType;
  @Field(() => [MediaType]) children!: MediaType[];
  @Field(() => Int) childrenCount!: number;
  @Field(() => Int) subfoldersCount!: number;
  @Field(() => Int) mediaCount!: number;
}

export function view(m: MediaRecord, baseUrl: string): MediaType {
  const image = m.type === 'image' ? imageView(m, baseUrl) : null;
  return {
    id: String(m.id),
    url: mediaUrl(baseUrl, m.path),
    path: m.path,
    name: m.name,
    created: m.created,
    diskUsage: m.diskUsage,
    type: m.type,
    thumbnail: m.type === 'folder' ? null : fileUrl(baseUrl, m.id, 'thumbnail'),
    metadata: m.metadata,
    image: image && { ...image, mediaPath: image.media_path, mediaUrl: image.media_url },
    video: m.type === 'video' ? (({ streaming_url, ...v }) => ({ ...v, streamingUrl: streaming_url, error: m.processingError }))(videoView(m, baseUrl)) : null,
    exclusive: m.exclusive,
    watermarked: m.kind === 'watermarked',
  };
}

@injectable()
@Resolver()
export class MediaResolver {
  constructor(
    @inject(MediaService) private readonly service: MediaService,
    @inject(RegistrationService) private readonly registrations: RegistrationService,
  ) {}

  @Mutation(() => MediaType, { description: 'Registers a media from a URL or data URI of a registration file (or of a plain image).' })
  async registerMedia(
    @Arg('path', () => String) path: string,
    @Arg('url', () => String) url: string,
    @Ctx() ctx: GraphQLContext,
    @Arg('metadata', () => GraphQLJSONObject, { nullable: true }) metadata?: Record<string, unknown>,
  ): Promise<MediaType> {
    const principal = requirePrincipal(ctx);
    const location = parseMediaPath(encodeSegments(path), principal, { creating: true });
    const meta = parseMetadata(metadata).set;
    const bytes = await resolveUrl({ container: ctx.container, principal, baseUrl: ctx.baseUrl }, url);
    return view(await this.registrations.register(location, inputOf(bytes), meta), ctx.baseUrl);
  }

  @Query(() => FolderType, { description: 'A folder of the media tree and a page of its children (path: /<homedir>/<path>, default the home).' })
  async mediaFolder(
    @Ctx() ctx: GraphQLContext,
    @Arg('path', () => String, { nullable: true }) path?: string,
    @Arg('page', () => Int, { nullable: true }) page?: number,
    @Arg('pageSize', () => Int, { nullable: true }) pageSize?: number,
    @Arg('hidden', () => Boolean, { nullable: true }) hidden?: boolean,
  ): Promise<FolderType> {
    const location = parseMediaPath(encodeSegments(path ?? ''), requirePrincipal(ctx), { allowHidden: hidden ?? false });
    const request = pageRequest(page ?? 1, graphqlPageSize(pageSize));
    const f = await this.service.folder(location, { offset: request.offset, pageSize: request.pageSize }, hidden ?? false);
    return { folder: view(f.folder, ctx.baseUrl), children: f.children.map((c) => view(c, ctx.baseUrl)), childrenCount: f.childrenCount, subfoldersCount: f.subfoldersCount, mediaCount: f.mediaCount };
  }

  @Query(() => MediaType, { nullable: true, description: 'A media or folder by path; NOT_FOUND when there is none (as REST answers 404).' })
  async media(@Arg('path', () => String) path: string, @Ctx() ctx: GraphQLContext): Promise<MediaType> {
    const location = parseMediaPath(encodeSegments(path), requirePrincipal(ctx), { allowHidden: true });
    const m = await this.service.findByPath(location.path);
    if (!m) throw notFound('No media at this path.');
    return view(m, ctx.baseUrl);
  }

  @Mutation(() => Boolean, { description: 'Sets metadata keys (user.*); a null value deletes the key.' })
  async updateMediaMetadata(
    @Arg('path', () => String) path: string,
    @Arg('metadata', () => GraphQLJSONObject) metadata: Record<string, unknown>,
    @Ctx() ctx: GraphQLContext,
  ): Promise<boolean> {
    const location = parseMediaPath(encodeSegments(path), requirePrincipal(ctx));
    const { set, remove } = parseMetadata(metadata);
    await this.service.updateMetadata(location.path, set, remove);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Deletes a media, or a folder with recursive: true (DELETE /api/v4/media/<path>).' })
  async deleteMedia(@Arg('path', () => String) path: string, @Ctx() ctx: GraphQLContext, @Arg('recursive', () => Boolean, { nullable: true }) recursive?: boolean): Promise<boolean> {
    const location = parseMediaPath(encodeSegments(path), requirePrincipal(ctx));
    await this.service.delete(location, recursive ?? false);
    return true;
  }
}

/**
 * GraphQL paths are plain text; the REST parser expects percent-encoded segments. An unpaired
 * surrogate (a JSON "\ud800") has no UTF-8 form: encodeURIComponent would throw (a 500).
 */
function encodeSegments(path: string): string {
  if (/\p{Cs}/u.test(path)) throw badRequest('invalid_path', 'The path is not valid Unicode (it holds an unpaired surrogate).');
  return path.split('/').map((s) => encodeURIComponent(s)).join('/');
}
