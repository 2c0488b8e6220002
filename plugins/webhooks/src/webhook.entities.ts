import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** An account's receiver: where and which events; the signing secret sealed with the SecretBox. */
@Entity({ name: 'webhook_endpoints' })
@Index(['accountId'])
export class WebhookEndpoint {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: string[];

  @Column({ type: 'text', default: '' })
  description!: string;

  /** `whsec_...` sealed by the SecretBox; shown to the client once, at creation. */
  @Column({ type: 'text', name: 'secret_sealed' })
  secretSealed!: string;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'text', name: 'disabled_reason', nullable: true })
  disabledReason!: string | null;

  /** First failure of the current run of failures; cleared by a success. */
  @Column({ type: 'timestamptz', name: 'failing_since', nullable: true })
  failingSince!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated!: Date;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryAttempt {
  at: string;
  /** Receiver's HTTP status; null when no response came. */
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** One event for one endpoint: the signed message and every attempt to deliver it. */
@Entity({ name: 'webhook_deliveries' })
@Index(['endpointId', 'created'])
export class WebhookDelivery {
  /** The Standard Webhooks message id (`webhook-id`), the same on every retry. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'integer', name: 'endpoint_id' })
  endpointId!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text', name: 'event_type' })
  eventType!: string;

  /** The exact JSON body that is signed and sent. */
  @Column({ type: 'text' })
  payload!: string;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ type: 'jsonb', name: 'attempt_log', default: () => "'[]'" })
  attemptLog!: DeliveryAttempt[];

  @Column({ type: 'timestamptz', name: 'next_attempt_at', nullable: true })
  nextAttemptAt!: Date | null;

  @Column({ type: 'timestamptz', name: 'locked_until', nullable: true })
  lockedUntil!: Date | null;

  @Column({ type: 'timestamptz', name: 'delivered_at', nullable: true })
  deliveredAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;
}
