import { Column, CreateDateColumn, Entity, PrimaryColumn } from '@filigrane/plugin-api';

/** One evidence pack: asked for, then built by a job into a WACZ blob. */
@Entity({ name: 'evidence_packs' })
export class EvidencePack {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text', array: true, name: 'match_ids' })
  matchIds!: string[];

  @Column({ type: 'text' })
  status!: 'pending' | 'complete' | 'failed';

  /** Asked for by the account's auto-capture setting (match.created), not by a person. */
  @Column({ type: 'boolean', default: false })
  automatic!: boolean;

  /** The service's base URL when the pack was asked for (links in the facts); '' for automatic packs. */
  @Column({ type: 'text', name: 'base_url', default: '' })
  baseUrl!: string;

  /** Builds tried (a build that throws is retried twice, then the pack is failed). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** Refreshed while a worker builds the pack: a stale one means its worker died (kill -9), and another takes the build over. */
  @Column({ type: 'timestamptz', nullable: true })
  heartbeat!: Date | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  @Column({ type: 'text', name: 'blob_key', nullable: true })
  blobKey!: string | null;

  @Column({ type: 'text', nullable: true })
  sha256!: string | null;

  @Column({ type: 'bigint', nullable: true, transformer: { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) } })
  size!: number | null;

  /** What the pack holds, in short (screenshot taken or why not, time stamp or why not, key id). */
  @Column({ type: 'jsonb', default: {} })
  summary!: Record<string, unknown>;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  completed!: Date | null;
}

/** The service's signing key: the public half published, the private half sealed with the master key. */
@Entity({ name: 'evidence_keys' })
export class EvidenceKey {
  /** The first 16 hex digits of the SHA-256 of the public key (SPKI DER). */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text' })
  algorithm!: string;

  @Column({ type: 'text', name: 'public_key' })
  publicKey!: string;

  @Column({ type: 'text', name: 'sealed_private_key' })
  sealedPrivateKey!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;
}

/** An account's evidence settings. */
@Entity({ name: 'evidence_settings' })
export class EvidenceAccountSettings {
  @PrimaryColumn({ type: 'integer', name: 'account_id' })
  accountId!: number;

  /** A pack is captured when a match is first recorded. */
  @Column({ type: 'boolean', name: 'auto_capture', default: false })
  autoCapture!: boolean;
}
