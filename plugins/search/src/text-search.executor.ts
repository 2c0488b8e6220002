import { inject, injectable } from 'inversify';
import { validationError, type ErrorItem, mediaUrl, parseMetadata, type MediaNodeType, type Metadata } from '@filigrane/core';
import { TextQueryService } from '@filigrane/plugin-media';

type MediaType = MediaNodeType;
import type { SearchExecutor, SearchScope } from './search-executors.js';

export interface TextQuery {
  metadata: Metadata | null;
  type: MediaType[] | null;
  filename: string | null;
  filename__startswith: string | null;
  sync: boolean;
}

const FIELDS = ['metadata', 'type', 'filename', 'filename__startswith', 'sync'];
const TYPES: MediaType[] = ['image', 'video', 'folder'];

/** Search by text: metadata, type and file name, within the caller's home directory. */
@injectable()
export class TextSearchExecutor implements SearchExecutor<TextQuery> {
  readonly kind = 'text';

  constructor(@inject(TextQueryService) private readonly texts: TextQueryService) {}

  accepts(body: Record<string, unknown>): boolean {
    return !('file' in body);
  }

  async parse(body: Record<string, unknown>): Promise<{ query: TextQuery; sync: boolean; name: null }> {
    const errors: ErrorItem[] = [];
    for (const k of Object.keys(body)) if (!FIELDS.includes(k)) errors.push({ field: k, code: 'unknown_field', details: `Unknown search parameter "${k}".` });
    let metadata: Metadata | null = null;
    if (body.metadata !== undefined && body.metadata !== null) {
      try {
        metadata = parseMetadata(body.metadata).set;
      } catch (err) {
        errors.push(...((err as { errors?: ErrorItem[] }).errors ?? []));
      }
    }
    let type: MediaType[] | null = null;
    if (body.type !== undefined && body.type !== null) {
      const list = Array.isArray(body.type) ? body.type : [body.type];
      if (list.length === 0 || !list.every((t) => TYPES.includes(t as MediaType))) {
        errors.push({ field: 'type', code: 'invalid_choice', details: 'type is image, video or folder.' });
      } else type = list as MediaType[];
    }
    const str = (k: string): string | null => {
      const v = body[k];
      if (v === undefined || v === null) return null;
      if (typeof v !== 'string' || v === '') {
        errors.push({ field: k, code: 'invalid', details: `${k} must be a non-empty string.` });
        return null;
      }
      return v;
    };
    const filename = str('filename');
    const prefix = str('filename__startswith');
    if (prefix !== null && [...prefix].length < 3) errors.push({ field: 'filename__startswith', code: 'min_length', details: 'filename__startswith needs at least 3 characters.' });
    if (body.sync !== undefined && typeof body.sync !== 'boolean') errors.push({ field: 'sync', code: 'invalid', details: 'sync must be a boolean.' });
    if (!errors.length && !metadata && !type && filename === null && prefix === null) {
      errors.push({ code: 'empty_query', details: 'Give at least one of metadata, type, filename, filename__startswith (or a file for an image search).' });
    }
    if (errors.length) throw validationError(errors);
    const sync = (body.sync as boolean | undefined) ?? true;
    return { query: { metadata, type, filename, filename__startswith: prefix, sync }, sync, name: null };
  }

  async run(query: TextQuery, scope: SearchScope): Promise<unknown[]> {
    const found = await this.texts.find(scope.home, {
      metadata: query.metadata ?? undefined,
      types: query.type ?? undefined,
      filename: query.filename ?? undefined,
      filenameStartsWith: query.filename__startswith ?? undefined,
    });
    const echo = this.describe(query);
    return found.map((m) => ({
      id: null,
      created: m.created.toISOString(),
      type: 'text',
      query: echo,
      media: { metadata: m.metadata, media_path: m.path, media_url: mediaUrl(scope.baseUrl, m.path) },
    }));
  }

  describe(query: TextQuery): Record<string, unknown> {
    return { filename: query.filename ?? query.filename__startswith, type: query.type ?? [], sync: query.sync, metadata: query.metadata };
  }
}
