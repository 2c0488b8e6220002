import type { MigrationInterface, QueryRunner } from 'typeorm';

export class VisualIndexInit1763700007000 implements MigrationInterface {
  name = 'VisualIndexInit1763700007000';

  async up(q: QueryRunner): Promise<void> {
    // ON DELETE CASCADE: a deleted media leaves the index in the same transaction, whoever deletes it.
    await q.query(`
      CREATE TABLE visual_index (
        media_id bigint PRIMARY KEY REFERENCES media(id) ON DELETE CASCADE,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        width integer NOT NULL,
        height integer NOT NULL,
        count integer NOT NULL,
        points bytea NOT NULL,
        descriptors bytea NOT NULL,
        dhash bytea NOT NULL,
        thumb bytea NOT NULL,
        indexed_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Warm-up loads one account; other processes catch up with rows indexed since their last look.
    await q.query('CREATE INDEX visual_index_account ON visual_index (account_id, indexed_at)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE visual_index');
  }
}

/**
 * Videos share the visual index: one row per sampled frame (frame 0, 1, ... at the media
 * plugin's steady rate; -1 for a still image), so the key becomes (media, frame).
 */
export class VisualIndexFrames1763900001000 implements MigrationInterface {
  name = 'VisualIndexFrames1763900001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE visual_index ADD COLUMN frame integer NOT NULL DEFAULT -1, ADD COLUMN frame_time real');
    await q.query('ALTER TABLE visual_index DROP CONSTRAINT visual_index_pkey');
    await q.query('ALTER TABLE visual_index ADD PRIMARY KEY (media_id, frame)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DELETE FROM visual_index WHERE frame >= 0');
    await q.query('ALTER TABLE visual_index DROP CONSTRAINT visual_index_pkey');
    await q.query('ALTER TABLE visual_index ADD PRIMARY KEY (media_id)');
    await q.query('ALTER TABLE visual_index DROP COLUMN frame, DROP COLUMN frame_time');
  }
}

/**
 * Video frames are keyed by their slot on the time line (tenths of a second), so that frames taken
 * at scene cuts sit beside the steady ones: the frames of the 2-per-second sampling move from n to
 * 5n. Two steps through negative numbers below -1, because the key is checked row by row.
 */
export class VisualIndexFrameSlots1764100001000 implements MigrationInterface {
  name = 'VisualIndexFrameSlots1764100001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('UPDATE visual_index SET frame = -2 - COALESCE(round(frame_time * 10)::int, frame * 5) WHERE frame >= 0');
    await q.query('UPDATE visual_index SET frame = -2 - frame WHERE frame < -1');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DELETE FROM visual_index WHERE frame >= 0 AND frame % 5 <> 0');
    await q.query('UPDATE visual_index SET frame = -2 - frame / 5 WHERE frame >= 0');
    await q.query('UPDATE visual_index SET frame = -2 - frame WHERE frame < -1');
  }
}

/** Postings of a row without those of some entries (the purge trigger's). */
const withoutFunction = (stride: number) => `
  -- (PostgreSQL's | and << share one precedence: every shift is parenthesised.)
  CREATE OR REPLACE FUNCTION visual_postings_without(p bytea, gone bigint[]) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(string_agg(substring(p FROM i FOR ${stride}), ''::bytea ORDER BY i), ''::bytea)
    FROM generate_series(1, octet_length(p), ${stride}) AS i
    WHERE (get_byte(p, i - 1)::bigint | (get_byte(p, i)::bigint << 8) | (get_byte(p, i + 1)::bigint << 16) | (get_byte(p, i + 2)::bigint << 24)) <> ALL (gone)
  $$`;

/**
 * The visual index held once, in the database (docs/visual-index.md): an inverted index of the LSH
 * buckets, one row per account and non-empty bucket, postings packed 36 bytes each (entry u32 +
 * the whole descriptor: votes count the true distance, as in memory; a 64-bit sample was too
 * loose). Each visual_index row gets an entry number (what postings name), the buckets it was
 * posted to (so a deletion purges exactly those rows) and its dHash bands under a GIN index (the
 * exact-copy fast path). Rows from before have buckets NULL: the service posts
 * them on first use of their account. Only core PostgreSQL features: the embedded database and
 * any PostgreSQL >= 12 run it unchanged.
 */
export class VisualIndexPostings1764300001000 implements MigrationInterface {
  name = 'VisualIndexPostings1764300001000';

  async up(q: QueryRunner): Promise<void> {
    // Postings carry the entry as a u32: 4 billion images and frames over the database's life.
    await q.query('CREATE SEQUENCE visual_index_entry_seq AS bigint MINVALUE 1 MAXVALUE 4294967295');
    await q.query(`ALTER TABLE visual_index ADD COLUMN entry bigint NOT NULL DEFAULT nextval('visual_index_entry_seq'),
      ADD COLUMN buckets integer[], ADD COLUMN bands bigint[]`);
    await q.query('ALTER SEQUENCE visual_index_entry_seq OWNED BY visual_index.entry');
    await q.query('CREATE UNIQUE INDEX visual_index_entry ON visual_index (entry)');
    await q.query('CREATE INDEX visual_index_bands ON visual_index USING gin (bands)');
    await q.query('CREATE INDEX visual_index_unposted ON visual_index (account_id) WHERE buckets IS NULL');
    // fillfactor: room on each page for the appended row version, so updates stay HOT and dead
    // versions are pruned as pages are read, even on the embedded database (no autovacuum).
    await q.query(`
      CREATE TABLE visual_postings (
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        bucket integer NOT NULL,
        postings bytea NOT NULL,
        n_postings integer GENERATED ALWAYS AS (octet_length(postings) / 36) STORED,
        PRIMARY KEY (account_id, bucket)
      ) WITH (fillfactor = 70)`);
    // Descriptors, keypoints and postings are incompressible: stored out of line without pglz's attempt.
    await q.query('ALTER TABLE visual_index ALTER COLUMN descriptors SET STORAGE EXTERNAL, ALTER COLUMN points SET STORAGE EXTERNAL');
    await q.query('ALTER TABLE visual_postings ALTER COLUMN postings SET STORAGE EXTERNAL');
    await q.query(withoutFunction(36));
    // Whoever deletes a media (or its row directly), its postings go in the same transaction. Rows
    // of a deleted account (gone from auth's account_directory view) are skipped: its postings go
    // with it. Locks are taken in bucket order, as registrations take them, so concurrent writers
    // never deadlock.
    await q.query(`
      CREATE FUNCTION visual_index_purge() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM visual_postings p
          JOIN (SELECT DISTINCT o.account_id, b FROM old_rows o JOIN account_directory a ON a.id = o.account_id CROSS JOIN LATERAL unnest(o.buckets) AS b) g
            ON p.account_id = g.account_id AND p.bucket = g.b
          ORDER BY p.account_id, p.bucket FOR UPDATE OF p;
        WITH g AS (
          SELECT o.account_id, b, array_agg(o.entry) AS entries
          FROM old_rows o JOIN account_directory a ON a.id = o.account_id CROSS JOIN LATERAL unnest(o.buckets) AS b
          GROUP BY o.account_id, b)
        UPDATE visual_postings p SET postings = visual_postings_without(p.postings, g.entries)
          FROM g WHERE p.account_id = g.account_id AND p.bucket = g.b;
        DELETE FROM visual_postings p
          USING (SELECT DISTINCT o.account_id, b FROM old_rows o CROSS JOIN LATERAL unnest(o.buckets) AS b) g
          WHERE p.account_id = g.account_id AND p.bucket = g.b AND p.n_postings = 0;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER visual_index_purge AFTER DELETE ON visual_index REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION visual_index_purge()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER visual_index_purge ON visual_index');
    await q.query('DROP FUNCTION visual_index_purge()');
    await q.query('DROP FUNCTION visual_postings_without(bytea, bigint[])');
    await q.query('DROP TABLE visual_postings');
    await q.query('ALTER TABLE visual_index DROP COLUMN entry, DROP COLUMN buckets, DROP COLUMN bands');
  }
}

/**
 * Postings shrink from 36 bytes to 6 (docs/visual-index.md): the entry and the feature's number
 * among its stored descriptors, which the vote reads for the few entries that could win. A million
 * media then take ~6 GB of postings instead of ~37 GB. Postings cannot be converted in SQL (they
 * do not name their feature), so they are emptied and every row is posted again on first use of
 * its account (buckets NULL: the backfill of VisualIndexPostings).
 */
export class VisualIndexCompactPostings1796200000000 implements MigrationInterface {
  name = 'VisualIndexCompactPostings1796200000000';

  async up(q: QueryRunner): Promise<void> {
    await this.restride(q, 6);
  }

  async down(q: QueryRunner): Promise<void> {
    await this.restride(q, 36);
  }

  private async restride(q: QueryRunner, stride: number): Promise<void> {
    await q.query('TRUNCATE visual_postings');
    await q.query('UPDATE visual_index SET buckets = NULL WHERE buckets IS NOT NULL');
    await q.query('ALTER TABLE visual_postings DROP COLUMN n_postings');
    await q.query(`ALTER TABLE visual_postings ADD COLUMN n_postings integer GENERATED ALWAYS AS (octet_length(postings) / ${stride}) STORED`);
    await q.query(withoutFunction(stride));
  }
}
