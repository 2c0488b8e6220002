import type { MigrationInterface, QueryRunner } from '@filigrane/plugin-api';

/** Cases of infringing matches, their matches, history, evidence packs and notices; per-account settings. */
export class CasesInit1795641910181 implements MigrationInterface {
  name = 'CasesInit1795641910181';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE cases (
        id serial PRIMARY KEY,
        account_id integer NOT NULL,
        title text NOT NULL,
        site text,
        state text NOT NULL CHECK (state IN ('open', 'notice_sent', 'resolved', 'closed')),
        resolution text CHECK (resolution IN ('removed', 'licensed_afterwards', 'paid')),
        created timestamptz NOT NULL,
        updated timestamptz NOT NULL
      )`);
    await q.query('CREATE INDEX cases_account ON cases (account_id, id)');
    await q.query('CREATE INDEX cases_account_site ON cases (account_id, site, state)');
    await q.query(`
      CREATE TABLE cases_matches (
        case_id integer NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        account_id integer NOT NULL,
        match_id text NOT NULL,
        media_id text,
        site text,
        page_url text,
        image_url text,
        first_seen timestamptz,
        last_seen timestamptz,
        added timestamptz NOT NULL,
        PRIMARY KEY (case_id, match_id)
      )`);
    await q.query('CREATE INDEX cases_matches_match ON cases_matches (account_id, match_id)');
    await q.query(`
      CREATE TABLE cases_history (
        id serial PRIMARY KEY,
        case_id integer NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        account_id integer NOT NULL,
        at timestamptz NOT NULL,
        action text NOT NULL,
        from_state text,
        to_state text,
        resolution text,
        actor jsonb NOT NULL,
        note text,
        detail jsonb NOT NULL DEFAULT '{}'
      )`);
    await q.query('CREATE INDEX cases_history_case ON cases_history (case_id, id)');
    await q.query(`
      CREATE TABLE cases_evidence (
        case_id integer NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        account_id integer NOT NULL,
        pack_id text NOT NULL,
        sha256 text,
        size bigint,
        match_ids text[] NOT NULL DEFAULT '{}',
        captured timestamptz,
        added timestamptz NOT NULL,
        PRIMARY KEY (case_id, pack_id)
      )`);
    await q.query(`
      CREATE TABLE cases_notices (
        id serial PRIMARY KEY,
        case_id integer NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        account_id integer NOT NULL,
        type text NOT NULL,
        lang text NOT NULL,
        created timestamptz NOT NULL,
        actor jsonb NOT NULL,
        body text NOT NULL,
        pdf_key text NOT NULL,
        pdf_sha256 text NOT NULL,
        pdf_size integer NOT NULL,
        facts jsonb NOT NULL,
        sent_at timestamptz,
        sent_to text,
        sent_via text,
        mail_message_id text
      )`);
    await q.query('CREATE INDEX cases_notices_case ON cases_notices (case_id, id)');
    await q.query(`
      CREATE TABLE cases_settings (
        account_id integer PRIMARY KEY,
        auto_group boolean NOT NULL DEFAULT true,
        rights_holder jsonb
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE cases_settings');
    await q.query('DROP TABLE cases_notices');
    await q.query('DROP TABLE cases_evidence');
    await q.query('DROP TABLE cases_history');
    await q.query('DROP TABLE cases_matches');
    await q.query('DROP TABLE cases');
  }
}
