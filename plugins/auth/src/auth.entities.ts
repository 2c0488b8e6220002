import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** The identity behind every credential: one per customer account. */
@Entity({ name: 'accounts' })
export class Account {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Index({ unique: true })
  @Column({ type: 'text' })
  username!: string;

  @Column({ type: 'text' })
  email!: string;

  @Column({ type: 'text', name: 'full_name', default: '' })
  fullName!: string;

  /** Home directory, `/<username>`. */
  @Column({ type: 'text' })
  home!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;
}

/** API key: looked up by hash, kept encrypted so account settings can show it again. */
@Entity({ name: 'api_keys' })
export class ApiKey {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Index({ unique: true })
  @Column({ type: 'text', name: 'key_hash' })
  keyHash!: string;

  @Column({ type: 'text', name: 'sealed_key' })
  sealedKey!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;
}

@Entity({ name: 'oauth_applications' })
export class OAuthApplication {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text' })
  name!: string;

  @Index({ unique: true })
  @Column({ type: 'text', name: 'client_id' })
  clientId!: string;

  /** scrypt hash of the client secret; the secret itself is shown once, at creation. */
  @Column({ type: 'text', name: 'client_secret_hash' })
  clientSecretHash!: string;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;
}

@Entity({ name: 'oauth_access_tokens' })
export class AccessToken {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'application_id' })
  applicationId!: number;

  @Index({ unique: true })
  @Column({ type: 'text', name: 'token_hash' })
  tokenHash!: string;

  @Column({ type: 'timestamptz' })
  expires!: Date;

  @CreateDateColumn({ type: 'timestamptz' })
  created!: Date;
}

/** A grant such as `home:/other`: lets an account act on another home directory. */
@Entity({ name: 'account_permissions' })
@Index(['accountId', 'permission'], { unique: true })
export class AccountPermission {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id!: number;

  @Column({ type: 'integer', name: 'account_id' })
  accountId!: number;

  @Column({ type: 'text' })
  permission!: string;
}
