import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiError, conflict, likeBelow, notFound, returnedRows, TOKENS, type BlobStore, type ExtensionRegistry } from '@filigrane/core';
import { AccountUsageService } from '@filigrane/plugin-account';
import { Media } from './media.entity.js';
import { MEDIA_EVENTS } from './media-events.js';
import { nameOf, parentOf, type MediaPath } from './media-path.js';
import type { Metadata } from '@filigrane/core';

export interface FolderPage {
  folder: Media;
  children: Media[];
  childrenCount: number;
  subfoldersCount: number;
  mediaCount: number;
}

/** Blob keys of a media: everything of it lives under `media/<id>/`. */
export const blobKeys = (id: number) => ({
  prefix: `media/${id}`,
  original: `media/${id}/original`,
  reduced: `media/${id}/reduced.bin`,
  thumbnail: `media/${id}/thumbnail.jpg`,
  preview: `media/${id}/image.png`,
});

/** The media tree: folders and media, read and changed per account. */
@injectable()
export class MediaService {
  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(AccountUsageService) private readonly usage: AccountUsageService,
    @inject(TOKENS.Extensions) private readonly extensions: ExtensionRegistry,
  ) {}

  async accountIdOfHome(home: string, manager: EntityManager = this.db.manager): Promise<number> {
    const rows: { id: number }[] = await manager.query('SELECT id FROM account_directory WHERE home = $1', [home]);
    if (!rows[0]) throw notFound(`No home directory ${home}.`);
    return rows[0].id;
  }

  findByPath(path: string): Promise<Media | null> {
    return this.db.manager.findOne(Media, { where: { path } });
  }

  findById(id: number): Promise<Media | null> {
    return this.db.manager.findOne(Media, { where: { id } });
  }

  /** A folder with one page of its children (folders first, then by name). */
  async folder(location: MediaPath, page: { offset: number; pageSize: number }, showHidden: boolean): Promise<FolderPage> {
    let folder = await this.findByPath(location.path);
    if (!folder) {
      if (location.names.length > 0) throw notFound(`No media or folder at ${location.path}.`);
      folder = await this.virtualHome(location.home);
    }
    if (folder.type !== 'folder') throw new ApiError(500, 'server_error', 'not a folder');
    const hidden = showHidden ? '' : "AND name NOT LIKE '.%'";
    const [children, counts] = await Promise.all([
      this.db.manager
        .createQueryBuilder(Media, 'm')
        .where(`m.parent = :parent ${hidden.replace('name', 'm.name')}`, { parent: folder.path })
        .orderBy("CASE WHEN m.type = 'folder' THEN 0 ELSE 1 END")
        .addOrderBy('m.name', 'ASC')
        .offset(page.offset)
        .limit(page.pageSize)
        .getMany(),
      this.db.query(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE type = 'folder')::int AS folders
         FROM media WHERE parent = $1 ${hidden}`,
        [folder.path],
      ) as Promise<{ total: number; folders: number }[]>,
    ]);
    const { total, folders } = counts[0]!;
    return { folder, children, childrenCount: total, subfoldersCount: folders, mediaCount: total - folders };
  }

  /** The home directory exists for every account even before anything is stored in it. */
  private async virtualHome(home: string): Promise<Media> {
    const rows: { id: number; created: Date }[] = await this.db.query('SELECT id, created FROM account_directory WHERE home = $1', [home]);
    if (!rows[0]) throw notFound(`No home directory ${home}.`);
    return Object.assign(new Media(), {
      id: 0, accountId: rows[0].id, path: home, parent: null, name: home.slice(1), type: 'folder', created: rows[0].created,
      diskUsage: 0, metadata: {}, exclusive: null, kind: null, mode: null, width: null, height: null, format: null, credit: null, duration: null, processing: null, processingError: null,
      pixelHash: null, sealedKey: null, params: null,
    } satisfies Media);
  }

  /**
   * Creates the missing folders above `path` (not the home itself), inside the caller's
   * transaction; refuses when one of them is a media. Counts them in the owner's quotas.
   */
  async ensureParents(manager: EntityManager, accountId: number, location: MediaPath): Promise<void> {
    let created = 0;
    for (let depth = 1; depth < location.names.length; depth++) {
      const path = [location.home, ...location.names.slice(0, depth)].join('/');
      const inserted: unknown[] = await manager.query(
        `INSERT INTO media (account_id, path, parent, name, type) VALUES ($1, $2, $3, $4, 'folder')
         ON CONFLICT (path) DO NOTHING RETURNING id`,
        [accountId, path, parentOf(path), nameOf(path)],
      );
      if (inserted.length) created++;
      else {
        const existing: { type: string }[] = await manager.query('SELECT type FROM media WHERE path = $1', [path]);
        if (existing[0]?.type !== 'folder') throw conflict('parent_not_folder', `${path} is a media, not a folder.`);
      }
    }
    if (created) await this.usage.apply(manager, accountId, { counters: { user_paths: created, paths_in_home: created } });
  }

  /** Sets and removes metadata keys of a media or folder. */
  async updateMetadata(path: string, set: Metadata, remove: string[]): Promise<void> {
    const result = await this.db.query(
      // The credit column follows user.credit (a string value sets it, removing the key or a non-string clears it).
      `UPDATE media SET metadata = (metadata || $2::jsonb) - $3::text[],
         credit = CASE WHEN jsonb_typeof(((metadata || $2::jsonb) - $3::text[]) -> 'user.credit') = 'string'
                       THEN ((metadata || $2::jsonb) - $3::text[]) ->> 'user.credit' ELSE NULL END
       WHERE path = $1 RETURNING id`,
      [path, JSON.stringify(set), remove],
    );
    if (!returnedRows(result).length) throw notFound(`No media or folder at ${path}.`);
  }

  /**
   * Deletes a media, or a folder with everything below it when `recursive`; usage follows and
   * the rows go in one transaction, so a deleted media can never be found again. Blobs go after.
   */
  async delete(location: MediaPath, recursive: boolean): Promise<void> {
    if (location.names.length === 0) throw conflict('cannot_delete_home', 'The home directory cannot be deleted.');
    const removed = await this.db.transaction(async (m) => {
      const target: { id: string; type: string; account_id: number }[] = await m.query(
        'SELECT id, type, account_id FROM media WHERE path = $1 FOR UPDATE',
        [location.path],
      );
      if (!target[0]) throw notFound(`No media or folder at ${location.path}.`);
      const like = likeBelow(location.path);
      if (target[0].type === 'folder' && !recursive) {
        const inside: unknown[] = await m.query('SELECT 1 FROM media WHERE parent = $1 LIMIT 1', [location.path]);
        if (inside.length) throw conflict('folder_not_empty', `${location.path} is not empty; add ?recursive=true to delete it with its content.`);
      }
      const rows = returnedRows<{ id: string; type: string; kind: string | null; disk_usage: string }>(
        await m.query(`DELETE FROM media WHERE path = $1 OR path LIKE $2 RETURNING id, type, kind, disk_usage`, [location.path, like]),
      );
      const media = rows.filter((r) => r.type !== 'folder');
      const folders = rows.length - media.length;
      await this.usage.apply(m, target[0].account_id, {
        images: -media.length,
        bytes: -media.reduce((s, r) => s + Number(r.disk_usage), 0),
        counters: {
          uploaded_marks: -media.filter((r) => r.kind === 'watermarked').length,
          uploaded_images: -media.filter((r) => r.kind === 'plain').length,
          active_paths_in_home: -media.length,
          paths_in_home: -rows.length,
          user_paths: -folders,
        },
      });
      return rows;
    });
    // After the commit: listeners (the visual index) drop the media from memory at once.
    const ids = removed.filter((r) => r.type !== 'folder').map((r) => Number(r.id));
    if (ids.length) for (const listener of this.extensions.get(MEDIA_EVENTS)) await listener.deleted(ids);
    for (const r of removed) await this.blobs.deletePrefix(blobKeys(Number(r.id)).prefix);
  }

  /**
   * The account-deleted hook: every media of the account, blobs first, then the rows (their matches
   * and index entries cascade), a batch at a time. A crash between the two leaves rows whose blobs
   * are gone, which the rerun deletes again; the reverse order could orphan files for ever.
   */
  async forgetAccount(accountId: number): Promise<void> {
    for (;;) {
      const batch: { id: string; type: string }[] = await this.db.query('SELECT id, type FROM media WHERE account_id = $1 ORDER BY id LIMIT 500', [accountId]);
      if (batch.length === 0) return;
      for (const r of batch) await this.blobs.deletePrefix(blobKeys(Number(r.id)).prefix);
      const ids = batch.map((r) => Number(r.id));
      await this.db.query('DELETE FROM media WHERE id = ANY($1::bigint[])', [ids]);
      const media = batch.filter((r) => r.type !== 'folder').map((r) => Number(r.id));
      if (media.length) for (const listener of this.extensions.get(MEDIA_EVENTS)) await listener.deleted(media);
    }
  }
}
