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
