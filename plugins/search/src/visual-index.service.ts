import { performance } from 'node:perf_hooks';
import { inject, injectable } from 'inversify';
import type { DataSource } from 'typeorm';
import { CORE_SETTINGS, TOKENS, type CoreSettings } from '@filigrane/core';
import { VIDEO_FAST_THRESHOLD } from '@filigrane/video';
import type { MediaEventsListener, RegisteredMedia, VideoFrameEvent } from '@filigrane/plugin-media';
import {
  canonicalLuma,
  fingerprintGrid,
  fingerprintPool,
  VisualIndex,
  type Candidate,
  type OrbFeatures,
  type VisualFingerprint,
} from '@filigrane/vision';
import { VisualIndexEntry } from './visual-index.entity.js';

/** Rows indexed this long before a process's last look are fetched again: commits land out of order. */
const SYNC_SLACK_MS = 30_000;
/** Rebuild an account's index once this share of its slots are tombstones. */
const MAX_DEAD_RATIO = 0.25;
const PAGE = 2000;

interface IndexRow {
  media_id: string;
  frame: number;
  count: number;
  points: Buffer;
  descriptors: Buffer;
  dhash: Buffer;
  thumb: Buffer;
  width: number;
  height: number;
}

interface AccountIndex {
  index: VisualIndex;
  /** Index keys of each video's frames, to drop them with the video. */
  frames: Map<number, number[]>;
  /** Server time of the last sync (from PostgreSQL's clock, never this process's). */
  syncedAt: Date;
  warmUpMs: number;
}

const floats = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const bytes = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

/**
 * In-memory keys: a still image is its media id; a video frame a negative key carrying the media
 * id and the frame's slot (tenths of a second: at most 2^20, 29 hours, far beyond MAX_VIDEO_SECONDS's default).
 */
export const FRAMES_PER_MEDIA = 1 << 20;
export const frameKey = (mediaId: number, frame: number) => (frame < 0 ? mediaId : -(mediaId * FRAMES_PER_MEDIA + frame + 1));
export function keyFrame(key: number): { mediaId: number; frame: number } {
  if (key > 0) return { mediaId: key, frame: -1 };
  const k = -key - 1;
  return { mediaId: Math.floor(k / FRAMES_PER_MEDIA), frame: k % FRAMES_PER_MEDIA };
}

export function rowFeatures(r: Pick<VisualIndexEntry, 'width' | 'height' | 'count' | 'points' | 'descriptors'>): OrbFeatures {
  return { width: r.width, height: r.height, count: r.count, points: floats(r.points), descriptors: bytes(r.descriptors) };
}

/**
 * The visual index of every account: fingerprints in PostgreSQL (written at registration), one
 * in-memory LSH index per account loaded on first use and kept in step with registrations and
 * deletions made by this process; rows written by other processes are picked up at each query.
 * Deletions by other processes are caught later, by the existence check of IdentificationService.
 */
@injectable()
export class VisualIndexService implements MediaEventsListener {
  private readonly accounts = new Map<number, Promise<AccountIndex>>();

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
  ) {}

  /** MEDIA_EVENTS: fingerprint the canonical grid (reduced copy, or computed from the image) and store it. */
  async registered(event: RegisteredMedia): Promise<void> {
    const { media } = event;
    let fp: VisualFingerprint;
    if (event.reduced) {
      const r = event.reduced;
      const luma = new Float32Array(r.luma.length);
      for (let i = 0; i < luma.length; i++) luma[i] = r.luma[i]! / 256;
      fp = await fingerprintGrid({ luma, width: r.width, height: r.height });
    } else if (event.image) {
      fp = await fingerprintGrid(await canonicalLuma(event.image, { maxPixels: this.core.maxImagePixels }));
    } else return;
    const f = fp.features;
    await this.db.query(
      `INSERT INTO visual_index (media_id, account_id, width, height, count, points, descriptors, dhash, thumb)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (media_id, frame) DO UPDATE SET indexed_at = now(), count = EXCLUDED.count, points = EXCLUDED.points,
         descriptors = EXCLUDED.descriptors, dhash = EXCLUDED.dhash, thumb = EXCLUDED.thumb`,
      [
        media.id, media.accountId, f.width, f.height, f.count,
        Buffer.from(f.points.buffer, f.points.byteOffset, f.points.byteLength),
        Buffer.from(f.descriptors), Buffer.from(fp.dhash), Buffer.from(fp.thumb),
      ],
    );
    const loaded = this.accounts.get(media.accountId);
    if (loaded) (await loaded).index.add(media.id, { ...f, dhash: fp.dhash, thumb: fp.thumb, aspect: fp.aspect });
  }

  /** MEDIA_EVENTS: one sampled frame of a video, indexed like a still image under its frame key. */
  async videoFrame(event: VideoFrameEvent): Promise<void> {
    const { media } = event;
    if (event.index >= FRAMES_PER_MEDIA) return; // past 29 hours a key would name another media's frame
    const fp = await fingerprintPool().fingerprint(event, { fastThreshold: VIDEO_FAST_THRESHOLD });
    const f = fp.features;
    await this.db.query(
      `INSERT INTO visual_index (media_id, frame, frame_time, account_id, width, height, count, points, descriptors, dhash, thumb)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (media_id, frame) DO UPDATE SET indexed_at = now(), count = EXCLUDED.count, points = EXCLUDED.points,
         descriptors = EXCLUDED.descriptors, dhash = EXCLUDED.dhash, thumb = EXCLUDED.thumb, frame_time = EXCLUDED.frame_time`,
      [
        media.id, event.index, event.time, media.accountId, f.width, f.height, f.count,
        Buffer.from(f.points.buffer, f.points.byteOffset, f.points.byteLength),
        Buffer.from(f.descriptors), Buffer.from(fp.dhash), Buffer.from(fp.thumb),
      ],
    );
    const loaded = this.accounts.get(media.accountId);
    if (loaded) {
      const a = await loaded;
      const key = frameKey(media.id, event.index);
      if (!a.index.has(key)) {
        a.index.add(key, { ...f, dhash: fp.dhash, thumb: fp.thumb, aspect: fp.aspect });
        const list = a.frames.get(media.id) ?? [];
        list.push(key);
        a.frames.set(media.id, list);
      }
    }
  }

  /** MEDIA_EVENTS: the rows went with the media (ON DELETE CASCADE); drop them from memory now. */
  async deleted(mediaIds: number[]): Promise<void> {
    for (const [accountId, loading] of this.accounts) {
      const a = await loading;
      for (const id of mediaIds) {
        a.index.remove(id);
        for (const key of a.frames.get(id) ?? []) a.index.remove(key);
        a.frames.delete(id);
      }
      if (a.index.deadRatio > MAX_DEAD_RATIO) this.accounts.delete(accountId);
    }
  }

  /** An account's index, loaded on first use and brought up to date with other processes' writes. */
  async account(accountId: number): Promise<AccountIndex> {
    let loading = this.accounts.get(accountId);
    if (!loading) {
      loading = this.load(accountId);
      this.accounts.set(accountId, loading);
      loading.catch(() => this.accounts.delete(accountId));
      return loading;
    }
    const a = await loading;
    await this.catchUp(accountId, a);
    return a;
  }

  private async load(accountId: number): Promise<AccountIndex> {
    const t0 = performance.now();
    const now: { now: Date }[] = await this.db.query('SELECT now() AS now');
    const counted: { n: number }[] = await this.db.query('SELECT count(*)::int AS n FROM visual_index WHERE account_id = $1', [accountId]);
    const index = new VisualIndex({ bits: VisualIndex.bitsFor(counted[0]!.n) });
    const frames = new Map<number, number[]>();
    // Pages by (media id, frame), so that a 100,000-media account never sits in one result set.
    for (let after = { media: 0, frame: -2 }; ; ) {
      const page = await this.rows(accountId, { after });
      this.addRows(page, index, frames);
      if (page.length < PAGE) break;
      const last = page[page.length - 1]!;
      after = { media: Number(last.media_id), frame: last.frame };
    }
    return { index, frames, syncedAt: now[0]!.now, warmUpMs: performance.now() - t0 };
  }

  /**
   * Rows other processes indexed since the last look. Only ids are read for the slack window
   * (rows just indexed here are in it too); full rows only for the ids this process lacks.
   */
  private async catchUp(accountId: number, a: AccountIndex): Promise<void> {
    const now: { now: Date }[] = await this.db.query('SELECT now() AS now');
    const recent: { media_id: string; frame: number }[] = await this.db.query(
      'SELECT media_id, frame FROM visual_index WHERE account_id = $1 AND indexed_at >= $2',
      [accountId, new Date(a.syncedAt.getTime() - SYNC_SLACK_MS)],
    );
    const missing = recent.filter((r) => !a.index.has(frameKey(Number(r.media_id), r.frame))).map((r) => Number(r.media_id));
    const ids = [...new Set(missing)];
    for (let i = 0; i < ids.length; i += 200) this.addRows(await this.rows(accountId, { ids: ids.slice(i, i + 200) }), a.index, a.frames);
    a.syncedAt = now[0]!.now;
  }

  private rows(accountId: number, where: { after: { media: number; frame: number } } | { ids: number[] }): Promise<IndexRow[]> {
    const columns = 'media_id, frame, count, points, descriptors, dhash, thumb, width, height';
    return 'ids' in where
      ? this.db.query(`SELECT ${columns} FROM visual_index WHERE account_id = $1 AND media_id = ANY($2)`, [accountId, where.ids])
      : this.db.query(`SELECT ${columns} FROM visual_index WHERE account_id = $1 AND (media_id, frame) > ($2, $3) ORDER BY media_id, frame LIMIT ${PAGE}`, [
          accountId, where.after.media, where.after.frame,
        ]);
  }

  private addRows(rows: IndexRow[], index: VisualIndex, frames: Map<number, number[]>): void {
    for (const r of rows) {
      const key = frameKey(Number(r.media_id), r.frame);
      if (index.has(key)) continue;
      index.add(key, { count: r.count, descriptors: bytes(r.descriptors), points: floats(r.points), dhash: bytes(r.dhash), thumb: bytes(r.thumb), aspect: r.width / r.height });
      if (r.frame >= 0) {
        const list = frames.get(Number(r.media_id)) ?? [];
        list.push(key);
        frames.set(Number(r.media_id), list);
      }
    }
  }

  /** Exact-copy hits and vote candidates of a query fingerprint. */
  async candidates(accountId: number, query: VisualFingerprint, max: number): Promise<{ exact: number[]; voted: Candidate[] }> {
    const { index } = await this.account(accountId);
    return {
      exact: index.exact(query),
      voted: index.vote(query.features.descriptors, query.features.count, { max }),
    };
  }

  /** Stored features of candidates that still exist (deleted ones have no row any more). */
  async features(accountId: number, ids: number[]): Promise<Map<number, OrbFeatures>> {
    if (!ids.length) return new Map();
    const rows = await this.db.manager
      .createQueryBuilder(VisualIndexEntry, 'v')
      .where('v.account_id = :accountId AND v.frame = -1 AND v.media_id IN (:...ids)', { accountId, ids })
      .getMany();
    return new Map(rows.map((r) => [r.mediaId, rowFeatures(r)]));
  }

  /** Forgets an account's in-memory index; the next query loads it again (benchmarks, operations). */
  evict(accountId: number): void {
    this.accounts.delete(accountId);
  }

  /** Memory and warm-up of a loaded account (benchmarks, operations). */
  async stats(accountId: number): Promise<{ media: number; bytes: number; warmUpMs: number }> {
    const a = await this.account(accountId);
    return { media: a.index.size, bytes: a.index.memoryBytes(), warmUpMs: a.warmUpMs };
  }
}
