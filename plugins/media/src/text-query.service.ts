import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { likeBelow, TOKENS } from '@filigrane/core';
import { Media, type MediaType } from './media.entity.js';
import type { Metadata } from '@filigrane/core';

export interface TextCriteria {
  /** Every key/value must be present in the media's metadata. */
  metadata?: Metadata;
  types?: MediaType[];
  /** Exact file name, case sensitive. */
  filename?: string;
  /** File name prefix, case sensitive. */
  filenameStartsWith?: string;
}

export const TEXT_SEARCH_LIMIT = 1000;

/** Finds media of one home directory by metadata, type and file name. */
@injectable()
export class TextQueryService {
  constructor(@inject(TOKENS.DataSource) private readonly db: DataSource) {}

  async find(home: string, c: TextCriteria, limit = TEXT_SEARCH_LIMIT): Promise<Media[]> {
    const q = this.db.manager
      .createQueryBuilder(Media, 'm')
      .where('(m.path = :home OR m.path LIKE :below)', { home, below: likeBelow(home) })
      .andWhere("m.name NOT LIKE '.%'");
    if (c.metadata && Object.keys(c.metadata).length) q.andWhere('m.metadata @> :meta::jsonb', { meta: JSON.stringify(c.metadata) });
    if (c.types?.length) q.andWhere('m.type IN (:...types)', { types: c.types });
    if (c.filename !== undefined) q.andWhere('m.name = :name', { name: c.filename });
    if (c.filenameStartsWith !== undefined) {
      q.andWhere('left(m.name, :len) = :prefix', { len: [...c.filenameStartsWith].length, prefix: c.filenameStartsWith });
    }
    return q.orderBy('m.path', 'ASC').limit(limit).getMany();
  }
}
