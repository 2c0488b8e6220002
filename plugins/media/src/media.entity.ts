import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '@filigrane/core';

export type MediaType = 'folder' | 'image' | 'video' | 'document';
/** watermarked: registered from a registration file (detection runs); plain: similarity only. */
export type RegistrationKind = 'watermarked' | 'plain';


/** One node of the media tree: a folder or a registered media. */
@Entity({ name: 'media' })
export class Media {
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  /** Owner: the account whose home directory holds the node. */
  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text', unique: true })
  path!: string;

  @Column({ type: 'text', nullable: true })
  parent!: string | null;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  type!: MediaType;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;

  @Column({ type: 'bigint', name: 'disk_usage', default: 0, transformer: bigintAsNumber })
  diskUsage!: number;

  @Column({ type: 'jsonb', default: {} })
  metadata!: Record<string, string | boolean>;

  @Column({ type: 'boolean', nullable: true })
  exclusive!: boolean | null;

  @Column({ type: 'text', nullable: true })
  kind!: RegistrationKind | null;

  /** normal or transactional registration file. */
  @Column({ type: 'text', nullable: true })
  mode!: string | null;

  @Column({ type: 'integer', nullable: true })
  width!: number | null;

  @Column({ type: 'integer', nullable: true })
  height!: number | null;

  @Column({ type: 'text', nullable: true })
  format!: string | null;

  @Column({ type: 'text', nullable: true })
  credit!: string | null;

  /** Videos: seconds. */
  @Column({ type: 'real', nullable: true })
  duration!: number | null;

  /** Videos: fingerprinting state (pending, ready, failed), done by the media.video job. */
  @Column({ type: 'text', nullable: true })
  processing!: 'pending' | 'ready' | 'failed' | null;

  /** Videos: why fingerprinting failed. */
  @Column({ type: 'text', name: 'processing_error', nullable: true })
  processingError!: string | null;

  /** SHA-256 of the original's decoded pixels. */
  @Column({ type: 'bytea', name: 'pixel_hash', nullable: true })
  pixelHash!: Buffer | null;

  /** The media's watermark key, sealed with the service master key. */
  @Column({ type: 'text', name: 'sealed_key', nullable: true })
  sealedKey!: string | null;

  /** Embedding parameters from the registration file. */
  @Column({ type: 'jsonb', nullable: true })
  params!: Record<string, number> | null;
}
