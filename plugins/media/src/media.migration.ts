import type { MigrationInterface, QueryRunner } from 'typeorm';

export class MediaInit1763700004000 implements MigrationInterface {
  name = 'MediaInit1763700004000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE media (
        id bigserial PRIMARY KEY,
        account_id integer NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        path text NOT NULL UNIQUE,
        parent text,
        name text NOT NULL,
        type text NOT NULL CHECK (type IN ('folder', 'image', 'video', 'document')),
        created timestamptz NOT NULL DEFAULT now(),
        disk_usage bigint NOT NULL DEFAULT 0,
        metadata jsonb NOT NULL DEFAULT '{}',
        exclusive boolean,
        kind text CHECK (kind IN ('watermarked', 'plain')),
        mode text,
        width integer,
        height integer,
        format text,
        credit text,
        pixel_hash bytea,
        sealed_key text,
        params jsonb
      )`);
    await q.query('CREATE INDEX media_children ON media (parent, type, name)');
    await q.query('CREATE INDEX media_account_hash ON media (account_id, pixel_hash) WHERE pixel_hash IS NOT NULL');
    await q.query('CREATE INDEX media_account_name ON media (account_id, name)');
    await q.query('CREATE INDEX media_metadata ON media USING gin (metadata jsonb_path_ops)');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE media');
  }
}

/** Videos: their duration and the state of their fingerprinting job. */
export class MediaVideo1763900000000 implements MigrationInterface {
  name = 'MediaVideo1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE media ADD COLUMN duration real, ADD COLUMN processing text, ADD COLUMN processing_error text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE media DROP COLUMN duration, DROP COLUMN processing, DROP COLUMN processing_error');
  }
}

/**
 * `media_catalog`: the media plugin's documented read view for other plugins' SQL (joins of their
 * rows to media, filters on a media's path or type): id, account_id, path, name, type, created,
 * credit, width, height, format, duration, exclusive, kind. Never the key, parameters or blob layout.
 */
export class MediaCatalog1764300002000 implements MigrationInterface {
  name = 'MediaCatalog1764300002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE VIEW media_catalog AS
        SELECT id, account_id, path, name, type, created, credit, width, height, format, duration, exclusive, kind FROM media`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP VIEW media_catalog');
  }
}
