import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'blacklisted_domains' })
@Index(['accountId', 'domain'], { unique: true })
export class BlacklistedDomain {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text' })
  domain!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;
}
