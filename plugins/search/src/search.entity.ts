import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type SearchStatus = 'pending' | 'running' | 'complete' | 'failed';

/** An asynchronous search and, once complete, its matches. */
@Entity({ name: 'searches' })
export class Search {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  /** The home directory searched (the caller's). */
  @Column({ type: 'text' })
  home!: string;

  /** The service's base URL when the search was made, for the links in its matches. */
  @Column({ type: 'text', name: 'base_url' })
  baseUrl!: string;

  @Column({ type: 'text' })
  kind!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ type: 'jsonb' })
  query!: Record<string, unknown>;

  @Column({ type: 'text' })
  status!: SearchStatus;

  @Column({ type: 'jsonb', nullable: true })
  matches!: unknown[] | null;

  @Column({ type: 'jsonb', nullable: true })
  error!: { code: string; details: unknown } | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  finished!: Date | null;
}
