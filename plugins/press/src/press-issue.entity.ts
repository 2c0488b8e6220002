import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type PressIssueStatus = 'pending' | 'running' | 'complete' | 'failed';

/** A publication's issue (a PDF) analysed for every account that tracks press. */
@Entity({ name: 'press_issues' })
export class PressIssue {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  /** Publication name ("Le Monde"). */
  @Column({ type: 'text' })
  name!: string;

  /** Issue date (date only, YYYY-MM-DD). */
  @Column({ type: 'date' })
  date!: string;

  /** The publication's web domain when the operator gave it (the v4 match's site). */
  @Column({ type: 'text', nullable: true })
  domain!: string | null;

  /** How it arrived: api, url, cli or inbox. */
  @Column({ type: 'text' })
  origin!: string;

  /** Account that ingested it (null from the command line or the inbox folder). */
  @Column({ type: 'integer', name: 'ingested_by', nullable: true })
  ingestedBy!: number | null;

  @Column({ type: 'text', nullable: true })
  filename!: string | null;

  @Column({ type: 'text', nullable: true, name: 'source_url' })
  sourceUrl!: string | null;

  @Column({ type: 'bigint', name: 'size_bytes' })
  sizeBytes!: string;

  @Column({ type: 'text' })
  sha256!: string;

  /** Base URL of the service for links stored in matches. */
  @Column({ type: 'text', name: 'base_url' })
  baseUrl!: string;

  @Column({ type: 'text' })
  status!: PressIssueStatus;

  @Column({ type: 'integer', name: 'pages_total', nullable: true })
  pagesTotal!: number | null;

  @Column({ type: 'integer', name: 'pages_done', default: 0 })
  pagesDone!: number;

  @Column({ type: 'integer', name: 'images_found', default: 0 })
  imagesFound!: number;

  @Column({ type: 'integer', name: 'matches_found', default: 0 })
  matchesFound!: number;

  @Column({ type: 'integer', name: 'credits_found', default: 0 })
  creditsFound!: number;

  @Column({ type: 'jsonb', nullable: true })
  error!: { code: string; details: string } | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  started!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finished!: Date | null;
}
