import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A new match as the digests need it, kept from the `match.created` event (no read of the matches tables). */
@Entity({ name: 'notification_matches' })
@Index(['accountId', 'created'])
export class NotificationMatch {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text', name: 'match_id' })
  matchId!: string;

  @Column({ type: 'text' })
  kind!: string;

  @Column({ type: 'text', name: 'page_url', nullable: true })
  pageUrl!: string | null;

  @Column({ type: 'text', nullable: true })
  domain!: string | null;

  @Column({ type: 'text', nullable: true })
  country!: string | null;

  @Column({ type: 'timestamptz' })
  created!: Date;
}

export type OutboxStatus = 'pending' | 'sent' | 'outbox' | 'failed';

/** Every mail the service writes: sent through SMTP when SMTP_URL is set, else kept here for `filigrane outbox`. */
@Entity({ name: 'notification_outbox' })
@Index(['accountId', 'created'])
export class OutboxMessage {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  /** The flag that caused it (notify_web, notify_match_site_daily, ...). */
  @Column({ type: 'text' })
  reason!: string;

  @Column({ type: 'text', name: 'to_address' })
  toAddress!: string;

  @Column({ type: 'text' })
  subject!: string;

  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text' })
  status!: OutboxStatus;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;

  @Column({ type: 'timestamptz', name: 'sent_at', nullable: true })
  sentAt!: Date | null;
}
