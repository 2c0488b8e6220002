import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '@filigrane/core';

/**
 * What the visual index keeps of one registered media, computed once at registration from its
 * canonical 512-px luma grid. PostgreSQL is the truth; each process loads an account's rows into
 * an in-memory VisualIndex on first use.
 */
@Entity({ name: 'visual_index' })
export class VisualIndexEntry {
  @PrimaryColumn({ type: 'bigint', name: 'media_id', transformer: bigintAsNumber })
  mediaId!: number;

  /** -1 for a still image; 0, 1, ... for the sampled frames of a video. */
  @PrimaryColumn({ type: 'integer' })
  frame!: number;

  /** Videos: seconds from the start. */
  @Column({ type: 'real', name: 'frame_time', nullable: true })
  frameTime!: number | null;

  /** The index is partitioned by account: every read filters on it. */
  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'integer' })
  width!: number;

  @Column({ type: 'integer' })
  height!: number;

  @Column({ type: 'integer' })
  count!: number;

  /** count x (x, y) float32, little-endian. */
  @Column({ type: 'bytea' })
  points!: Buffer;

  /** count x 32-byte ORB descriptors. */
  @Column({ type: 'bytea' })
  descriptors!: Buffer;

  @Column({ type: 'bytea' })
  dhash!: Buffer;

  @Column({ type: 'bytea' })
  thumb!: Buffer;

  @Column({ type: 'timestamptz', name: 'indexed_at', default: () => 'now()' })
  indexedAt!: Date;
}
