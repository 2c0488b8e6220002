import {
  MEDIA_OBJECT_SCHEMA,
  streamed,
  badRequest,
  BlobMissingError,
  canActOnHome,
  file,
  noContent,
  notFound,
  ok,
  created,
  pageEnvelope,
  parseBoolean,
  parsePage,
  queryString,
  TOKENS,
  validationError,
  type BlobStore,
  type RouteContext,
  type RouteSpec,
} from '@filigrane/core';
import { resolveUrl } from './url-resolver.js';
import { blobKeys, MediaService } from './media.service.js';
import { parseMediaPath } from './media-path.js';
import { mediaView } from '@filigrane/core';
import { parseMetadata } from '@filigrane/core';
import { MEDIA_QUERY, METADATA_SCHEMA, REGISTRATION_BODY_SCHEMA } from './media.schemas.js';
import { inputOf, RegistrationService, type RegistrationInput } from './registration.service.js';
import { byteRange } from './byte-range.js';
import { VIDEO_BODY_TYPES, VIDEO_CONTENT_TYPES, type VideoFormat } from '@filigrane/video';

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'];
/** Video bodies (the container is sniffed from the bytes; the type only admits the body). */
export const VIDEO_TYPES = VIDEO_BODY_TYPES;

/** The request path after `/api/v4/media`, as sent. */
const treePath = (ctx: RouteContext) => ctx.rawPath.replace(/^\/api\/v4\/media/, '');

async function registrationInput(ctx: RouteContext): Promise<{ input: RegistrationInput; metadata: unknown }> {
  if (ctx.rawBody) return { input: inputOf(ctx.rawBody), metadata: undefined };
  const body = ctx.body as Record<string, unknown>;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid', 'Expected a JSON object with url and metadata.');
  const unknown = Object.keys(body).filter((k) => k !== 'url' && k !== 'metadata');
  if (typeof body.url !== 'string' || body.url === '' || unknown.length) {
    throw validationError([
      ...(typeof body.url !== 'string' || body.url === '' ? [{ field: 'url', code: 'required', details: 'url (a URL or a data URI) is required.' }] : []),
      ...unknown.map((k) => ({ field: k, code: 'unknown_field', details: `Unknown field "${k}".` })),
    ]);
  }
  return { input: inputOf(await resolveUrl(ctx, body.url)), metadata: body.metadata };
}

/** A folder (with a page of its children) or a media. */
const getMedia: RouteSpec['handler'] = async (ctx) => {
  const hidden = parseBoolean(queryString(ctx.query, 'hidden'), 'hidden') ?? false;
  const location = parseMediaPath(treePath(ctx), ctx.principal!, { allowHidden: hidden });
  const service = ctx.container.get(MediaService);
  const media = location.names.length ? await service.findByPath(location.path) : null;
  if (media && media.type !== 'folder') return ok(mediaView(media, ctx.baseUrl));
  const page = parsePage(ctx);
  const folder = await service.folder(location, page, hidden);
  const children = folder.children.map((c) => mediaView(c, ctx.baseUrl));
  const envelope = pageEnvelope(ctx, page, folder.childrenCount, children, { withCount: false, listName: 'children' });
  return ok({
    ...mediaView(folder.folder, ctx.baseUrl),
    children_count: folder.childrenCount,
    subfolders_count: folder.subfoldersCount,
    media_count: folder.mediaCount,
    ...envelope,
  });
};

export const mediaRoutes: RouteSpec[] = [
  { versions: ['v4'], method: 'GET', path: '/media', summary: 'The caller\'s home folder', query: MEDIA_QUERY, responses: { 200: { schema: MEDIA_OBJECT_SCHEMA } }, handler: getMedia },
  { versions: ['v4'], method: 'GET', path: '/media/*', summary: 'A folder (with a page of children) or a media', query: MEDIA_QUERY, responses: { 200: { schema: MEDIA_OBJECT_SCHEMA } }, handler: getMedia },
  {
    versions: ['v4'],
    method: 'PUT',
    path: '/media/*',
    accepts: ['json', 'binary'],
    // application/octet-stream too (what generic HTTP clients send): the bytes say what they are.
    binaryTypes: ['application/lmk', ...IMAGE_TYPES, ...VIDEO_TYPES, 'application/octet-stream'],
    summary: 'Register a media: registration file, URL or data URI, or a plain image',
    requestSchema: REGISTRATION_BODY_SCHEMA,
    responses: { 201: { schema: MEDIA_OBJECT_SCHEMA } },
    async handler(ctx) {
      const location = parseMediaPath(treePath(ctx), ctx.principal!, { creating: true });
      const { input, metadata } = await registrationInput(ctx);
      const media = await ctx.container.get(RegistrationService).register(location, input, parseMetadata(metadata).set);
      return created(mediaView(media, ctx.baseUrl));
    },
  },
  {
    versions: ['v4'],
    method: 'PATCH',
    path: '/media/*',
    summary: 'Update metadata; null deletes a key',
    requestSchema: { type: 'object', additionalProperties: false, properties: { metadata: METADATA_SCHEMA } },
    responses: { 200: { description: 'An empty JSON object', schema: { type: 'object', maxProperties: 0 } } },
    async handler(ctx) {
      const location = parseMediaPath(treePath(ctx), ctx.principal!);
      const body = ctx.body as Record<string, unknown>;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid', 'Expected a JSON object.');
      const extra = Object.keys(body).filter((k) => k !== 'metadata');
      if (extra.length) throw validationError(extra.map((k) => ({ field: k, code: 'unknown_field', details: `Only metadata can be changed (got "${k}").` })));
      const { set, remove } = parseMetadata(body.metadata);
      if (location.names.length === 0) throw badRequest('invalid_path', 'The home directory has no metadata.');
      await ctx.container.get(MediaService).updateMetadata(location.path, set, remove);
      return ok({});
    },
  },
  {
    versions: ['v4'],
    method: 'DELETE',
    path: '/media/*',
    accepts: ['none', 'json'],
    summary: 'Delete a media, or a folder with ?recursive=true',
    query: { recursive: { type: 'boolean', description: 'Delete a folder and everything below it' } },
    responses: { 204: { description: 'Deleted' } },
    async handler(ctx) {
      const location = parseMediaPath(treePath(ctx), ctx.principal!);
      const recursive = parseBoolean(queryString(ctx.query, 'recursive'), 'recursive') ?? false;
      await ctx.container.get(MediaService).delete(location, recursive);
      return noContent();
    },
  },
  {
    versions: ['v4'],
    method: 'GET',
    path: '/media-files/:id/:file',
    summary: 'Files of a media: thumbnail, image, registration; stream (a video, with HTTP Range support)',
    responses: { 200: { files: ['image/jpeg', 'image/png', 'image/gif', 'application/lmk', 'video/mp4', 'video/quicktime', 'video/webm', 'application/octet-stream'] }, 206: { description: 'A byte range of the video', files: ['video/mp4', 'video/quicktime', 'video/webm', 'application/octet-stream'] } },
    async handler(ctx) {
      const id = ctx.params.id ?? '';
      const which = ctx.params.file;
      if (!/^\d{1,15}$/.test(id) || !['thumbnail', 'image', 'registration', 'stream'].includes(which ?? '')) throw notFound();
      const media = await ctx.container.get(MediaService).findById(Number(id));
      // Another account's file is "not found", never "forbidden": its existence is not disclosed.
      if (!media || media.type === 'folder' || !canActOnHome(ctx.principal!, `/${media.path.split('/')[1]}`)) throw notFound();
      const keys = blobKeys(media.id);
      const blobs = ctx.container.get<BlobStore>(TOKENS.BlobStore);
      // A committed media always has its files: one missing is a server fault (500 file_missing,
      // its key logged), unless the media was deleted meanwhile.
      const missing = async (key: string): Promise<never> => {
        if (!(await ctx.container.get(MediaService).findById(media.id))) throw notFound();
        throw new BlobMissingError(key);
      };
      const read = async (key: string) => (await blobs.get(key)) ?? missing(key);
      if (which === 'thumbnail') return file(await read(keys.thumbnail), 'image/jpeg');
      if (which === 'registration') {
        if (media.kind !== 'watermarked') throw notFound('A plain image has no registration file.');
        return file(await read(keys.original), 'application/lmk', `${media.name}.lmk`);
      }
      if (which === 'stream' && media.type !== 'video') throw notFound('Only a video has a stream.');
      if (media.type === 'video') {
        // Streamed from disk (videos run to hundreds of MB), the requested range only.
        const video = await blobs.open(keys.original, (size) => byteRange(size, ctx.headers.range));
        if (!video) return missing(keys.original);
        const contentType = VIDEO_CONTENT_TYPES[(media.format ?? '') as VideoFormat] ?? 'application/octet-stream';
        const { range } = video;
        const answer = streamed(video.stream, range ? range.end - range.start + 1 : video.size, contentType);
        if (!range) return { ...answer, headers: { ...answer.headers, 'accept-ranges': 'bytes' } };
        return { ...answer, status: 206, headers: { ...answer.headers, 'accept-ranges': 'bytes', 'content-range': `bytes ${range.start}-${range.end}/${video.size}` } };
      }
      if (media.kind === 'plain') return file(await read(keys.original), `image/${media.format}`);
      return file(await read(keys.preview), 'image/png');
    },
  },
];

