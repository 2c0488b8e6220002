import type { MigrationInterface, QueryRunner } from 'typeorm';

export class AuthInit1763700001000 implements MigrationInterface {
  name = 'AuthInit1763700001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE accounts (
        id serial PRIMARY KEY,
        username text NOT NULL UNIQUE,
        email text NOT NULL,
        full_name text NOT NULL DEFAULT '',
        home text NOT NULL UNIQUE,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        key_hash text NOT NULL UNIQUE,
        sealed_key text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX api_keys_account ON api_keys(account_id)');
    await q.query(`
      CREATE TABLE oauth_applications (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name text NOT NULL,
        client_id text NOT NULL UNIQUE,
        client_secret_hash text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX oauth_applications_account ON oauth_applications(account_id, id)');
    await q.query(`
      CREATE TABLE oauth_access_tokens (
        id serial PRIMARY KEY,
        application_id integer NOT NULL REFERENCES oauth_applications(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        expires timestamptz NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX oauth_access_tokens_expires ON oauth_access_tokens(expires)');
    await q.query(`
      CREATE TABLE account_permissions (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        permission text NOT NULL,
        UNIQUE (account_id, permission)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['account_permissions', 'oauth_access_tokens', 'oauth_applications', 'api_keys', 'accounts']) {
      await q.query(`DROP TABLE ${t}`);
    }
  }
}

/** Failed credentials per address, client id and (client, address) pair: CredentialThrottle. */
export class AuthThrottle1764100002000 implements MigrationInterface {
  name = 'AuthThrottle1764100002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE auth_throttle (
        subject text PRIMARY KEY,
        failures integer NOT NULL,
        last_failure timestamptz NOT NULL,
        blocked_until timestamptz,
        prev_blocked boolean NOT NULL DEFAULT false,
        prev_failures integer NOT NULL DEFAULT 0,
        allowance integer NOT NULL,
        base double precision NOT NULL,
        cap double precision NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE auth_throttle');
  }
}

/**
 * `account_directory`: the auth plugin's documented read view of accounts for other plugins' SQL
 * (joins, lookups by home): id, username, full_name, email, home, created, permissions (sorted).
 * Its columns are auth's public contract; the tables behind it are not.
 */
export class AuthAccountDirectory1764300001000 implements MigrationInterface {
  name = 'AuthAccountDirectory1764300001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW account_directory AS
        SELECT a.id, a.username, a.full_name, a.email, a.home, a.created,
               ARRAY(SELECT ap.permission FROM account_permissions ap WHERE ap.account_id = a.id ORDER BY ap.permission) AS permissions
        FROM accounts a`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP VIEW account_directory');
  }
}

/** Passwords (browser sign-in) and browser sessions: PasswordService, SessionService. */
export class AuthSessions1764900001000 implements MigrationInterface {
  name = 'AuthSessions1764900001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE accounts ADD COLUMN password_hash text, ADD COLUMN password_changed timestamptz');
    await q.query(`
      CREATE TABLE auth_sessions (
        id serial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        token_hash text NOT NULL UNIQUE,
        created timestamptz NOT NULL,
        last_seen timestamptz NOT NULL,
        expires timestamptz NOT NULL,
        user_agent text NOT NULL DEFAULT '',
        address text NOT NULL DEFAULT ''
      )`);
    await q.query('CREATE INDEX auth_sessions_account ON auth_sessions(account_id, last_seen)');
    await q.query('CREATE INDEX auth_sessions_expires ON auth_sessions(expires)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE auth_sessions');
    await q.query('ALTER TABLE accounts DROP COLUMN password_hash, DROP COLUMN password_changed');
  }
}
