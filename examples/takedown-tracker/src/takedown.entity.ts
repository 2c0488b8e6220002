import { Column, Entity, Index, PrimaryGeneratedColumn } from '@filigrane/plugin-api';

/** A takedown request an account sent for a page where a copy of its media was found. */
@Entity({ name: 'takedown_requests' })
@Index(['accountId', 'pageUrl'], { unique: true })
export class TakedownRequest {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ name: 'account_id', type: 'integer' })
  accountId!: number;

  /** The match it is about (null: opened by hand). */
  @Column({ name: 'match_id', type: 'text', nullable: true })
  matchId!: string | null;

  @Column({ name: 'page_url', type: 'text' })
  pageUrl!: string;

  /** 'open', 'overdue' (no answer within TAKEDOWN_DAYS), 'done'. */
  @Column({ type: 'text', default: 'open' })
  status!: string;

  @Column({ name: 'opened_at', type: 'timestamptz' })
  openedAt!: Date;
}
