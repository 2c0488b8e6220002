import type { MigrationInterface, QueryRunner } from '@filigrane/plugin-api';

const STATES = "'new', 'unsure', 'licensed', 'infringing', 'not_a_match', 'ignored'";

/**
 * Review states (one row per reviewed match; no row is `new`), their audit trail, and the licensees.
 * Match ids are the matches plugin's public ids; no foreign key into its table (a match deleted
 * with its media leaves a row no listing reaches, removed with the account).
 */
export class ReviewInit1764108000000 implements MigrationInterface {
  name = 'ReviewInit1764108000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE review_states (
        account_id integer NOT NULL,
        match_id bigint NOT NULL,
        state text NOT NULL CHECK (state IN (${STATES})),
        license_id bigint,
        automatic boolean NOT NULL DEFAULT false,
        note text,
        changed_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, match_id)
      )`);
    await q.query('CREATE INDEX review_states_state ON review_states (account_id, state)');
    await q.query(`
      CREATE TABLE review_changes (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL,
        match_id bigint NOT NULL,
        state text NOT NULL,
        previous_state text NOT NULL,
        license_id bigint,
        note text,
        automatic boolean NOT NULL DEFAULT false,
        actor_type text NOT NULL CHECK (actor_type IN ('account', 'application', 'licensee')),
        actor_account_id integer,
        actor_username text,
        application_id integer,
        changed_at timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX review_changes_match ON review_changes (account_id, match_id, id)');
    await q.query('CREATE INDEX review_changes_time ON review_changes (account_id, changed_at)');
    await q.query(`
      CREATE TABLE review_licensees (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL,
        name text NOT NULL,
        domain text NOT NULL,
        include_subdomains boolean NOT NULL,
        media_path text,
        media_id bigint,
        valid_from timestamptz,
        valid_until timestamptz,
        reference text,
        created timestamptz NOT NULL,
        updated timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX review_licensees_account ON review_licensees (account_id, id)');
    // A re-application of the licensees asked for (a generation per account): the job runs until it caught up.
    await q.query('CREATE TABLE review_licence_runs (account_id integer PRIMARY KEY, requested integer NOT NULL, applied integer NOT NULL DEFAULT 0)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE review_licence_runs');
    await q.query('DROP TABLE review_licensees');
    await q.query('DROP TABLE review_changes');
    await q.query('DROP TABLE review_states');
  }
}
