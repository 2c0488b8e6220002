import { Column, Entity, PrimaryColumn } from 'typeorm';

export type WatermarkingStatus = 'pending' | 'running' | 'complete' | 'failed';

/** The error a failed job ends with, in the spec's error body shape (replayed to sync callers). */
export interface WatermarkingError {
  status_code: number;
  code: string;
  details: unknown;
}

/**
 * One watermarking: the row is the job's state (the pg-boss job only carries its id) and the index
 * of its three assets in the BlobStore (`watermarking/<id>/original|watermarked|registration`).
 */
@Entity({ name: 'watermarking_jobs' })
export class WatermarkingJob {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  /** The caller: the only account that may see the job and its assets; the .lmk is sealed for it. */
  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text' })
  status!: WatermarkingStatus;

  /** jpeg, png or gif: the original's format, kept by the watermarked image. */
  @Column({ type: 'text' })
  format!: string;

  @Column({ type: 'jsonb', nullable: true })
  error!: WatermarkingError | null;

  /** Set from the injectable clock (not the database's now()) so tests can move time. */
  @Column({ type: 'timestamptz' })
  created!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  finished!: Date | null;

  /** After this instant the assets are gone for clients (404) and the purge job deletes them. */
  @Column({ type: 'timestamptz' })
  expires!: Date;

  /** Bytes counted in the account's disk_usage while the assets live (given back by the purge). */
  @Column({ type: 'bigint', default: 0, transformer: { to: (v: number) => v, from: (v: string | null) => Number(v ?? 0) } })
  bytes!: number;
}
