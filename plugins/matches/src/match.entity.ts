import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber } from '@filigrane/core';

/** A site where copies were found: public facts, shared by all accounts. */
@Entity({ name: 'sites' })
export class Site {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  /** Main domain (registrable part), e.g. example.co.uk. */
  @Column({ type: 'text', unique: true })
  domain!: string;

  @Column({ type: 'text' })
  name!: string;

  /** Public suffix, e.g. co.uk. */
  @Column({ type: 'text' })
  suffix!: string;

  @Column({ type: 'text', nullable: true })
  country!: string | null;
}

export type { SightedImage, VideoAlignment } from './match-types.js';
import type { SightedImage, VideoAlignment } from './match-types.js';

/** A registered media found somewhere: one row per (media, image, page), updated on new sightings. */
@Entity({ name: 'matches' })
export class Match {
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  /** null for credit matches: a credit line named the account, no media needed. */
  @Column({ type: 'bigint', name: 'media_id', nullable: true, transformer: bigintAsNumber })
  mediaId!: number | null;

  @Column({ type: 'text' })
  kind!: 'web' | 'press' | 'credit';

  @Column({ type: 'text' })
  source!: string;

  @Column({ type: 'boolean' })
  watermarked!: boolean;

  @Column({ type: 'boolean', nullable: true })
  exclusive!: boolean | null;

  @Column({ type: 'boolean', default: true })
  export!: boolean;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  @Column({ type: 'integer', array: true, default: () => "'{}'" })
  sessions!: number[];

  @Column({ type: 'integer', name: 'site_id', nullable: true })
  siteId!: number | null;

  /** Full host of the page (or image) where the copy was seen. */
  @Column({ type: 'text', nullable: true })
  host!: string | null;

  @Column({ type: 'text', name: 'page_url', default: '' })
  pageUrl!: string;

  @Column({ type: 'jsonb', default: {} })
  page!: Record<string, unknown>;

  @Column({ type: 'timestamptz', name: 'page_date_published', nullable: true })
  pageDatePublished!: Date | null;

  @Column({ type: 'text', name: 'query_url', default: '' })
  queryUrl!: string;

  @Column({ type: 'integer', name: 'query_width', nullable: true })
  queryWidth!: number | null;

  @Column({ type: 'integer', name: 'query_height', nullable: true })
  queryHeight!: number | null;

  @Column({ type: 'text', name: 'query_format', nullable: true })
  queryFormat!: string | null;

  @Column({ type: 'jsonb', nullable: true })
  press!: { issueName: string; issueDate: string; pageNumber: number } | null;

  @Column({ type: 'text', nullable: true })
  credit!: string | null;

  /** Video matches: the aligned time ranges (seconds) in the query video and in the registered one. */
  @Column({ type: 'jsonb', nullable: true })
  video!: VideoAlignment | null;

  /** The image as it was seen (null for matches recorded before this column existed). */
  @Column({ type: 'jsonb', nullable: true })
  image!: SightedImage | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'date_created' })
  dateCreated!: Date;

  @Column({ type: 'timestamptz', name: 'date_updated' })
  dateUpdated!: Date;
}
