import { inject, injectable } from 'inversify';
import type { DataSource, EntityManager } from 'typeorm';
import { CORE_SETTINGS, TOKENS, type CoreSettings } from '@filigrane/core';
import { VIDEO_FAST_THRESHOLD } from '@filigrane/video';
import type { MediaEventsListener, RegisteredMedia, VideoFrameEvent } from '@filigrane/plugin-media';
import {
  canonicalLuma,
  DESCRIPTOR_BYTES,
  featureKey,
  dhashBands,
  entryPostings,
  POSTING_BYTES,
  fingerprintGrid,
  fingerprintPool,
  hamming64,
  MAX_BITS,
  mergedRanges,
  queryRanges,
  sameThumbnail,
  sharedBits,
  sharedCap,
  VoteTally,
  type Candidate,
  type OrbFeatures,
  type VisualFingerprint,
} from '@filigrane/vision';
import { VisualIndexEntry } from './visual-index.entity.js';
import { readPostings } from './postings-read.js';

/** How long a process trusts its count of an account's entries (it only picks the key length). */
const COUNT_TTL_MS = 30_000;
/** Fewest votes for a candidate (VisualIndex's default). */
const MIN_VOTES = 4;
/** Fewest entries scored on their stored descriptors after the postings' first pass. */
const SCORED_MIN = 96;
/**
 * The same for a wide vote: a reduction (a small crop's fallback), whose original meets the query
 * only a few times more than the archive's look-alikes do: at 100,000 media 96 lost a 10% crop's
 * original (crop10 9/12 in the copies benchmark, session 12; 10-12/12 at 1,536, varying with the run's
 * keys: the rest collect under MIN_VOTES, docs/watermark-benchmark.md session 13). A mirror's original
 * collects hundreds of votes and needs no more than the straight pass.
 */
const WIDE_SCORED_MIN = 1536;
/**
 * Fewest votes in a wide vote once keys are long (LONG_KEY_BITS, from ~8,000 media): a 10 % crop's
 * matching descriptors (some 40-60 bits apart after a 3x rescale) then rarely share a bucket, and its
 * original, which RANSAC validates with 20-60 inliers, may get only 2 or 3 votes where short keys gave
 * it 6-16 (docs/visual-index.md, session 15). Votes are still scored on the stored descriptors, and
 * RANSAC decides.
 */
const WIDE_MIN_VOTES = 2;
const LONG_KEY_BITS = 20;
/** Of the candidates under MIN_VOTES, the best this many only: each costs a RANSAC (~10 ms), and an unrelated query has several. */
const FEW_VOTES_KEPT = 2;
const scoredFor = (wide: boolean) => (wide ? WIDE_SCORED_MIN : SCORED_MIN);
const minVotesFor = (wide: boolean, bits: number) => (wide && bits >= LONG_KEY_BITS ? WIDE_MIN_VOTES : MIN_VOTES);
/** Rows from before the shared index posted per transaction on first use of their account. */
const BACKFILL_BATCH = 100;

const floats = (b: Buffer) => new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
const bytes = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

interface IndexRow {
  count: number;
  points: Buffer;
  descriptors: Buffer;
  dhash: Buffer;
}

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
 * The visual index of every account, held once in PostgreSQL (docs/visual-index.md): the
 * fingerprint rows (visual_index, read for RANSAC) and an inverted index of their LSH buckets
 * (visual_postings), written in the registration's transaction and purged by a trigger when a row
 * goes. A query reads only the buckets its descriptors fall in; no process keeps an account's
 * index in memory, so every process sees every other's writes and deletions at once.
 */
@injectable()
export class VisualIndexService implements MediaEventsListener {
  private readonly counts = new Map<number, { n: number; at: number; refresh?: Promise<unknown> }>();
  private readonly backfilled = new Map<number, Promise<void>>();

  constructor(
    @inject(TOKENS.DataSource) private readonly db: DataSource,
    @inject(CORE_SETTINGS.token) private readonly core: CoreSettings,
  ) {}

  /** MEDIA_EVENTS: fingerprint the canonical grid (reduced copy, or computed from the image) and index it. */
  async registered(event: RegisteredMedia): Promise<void> {
    const { media } = event;
    let fp: VisualFingerprint;
    if (event.reduced) {
      const r = event.reduced;
      const luma = new Float32Array(r.luma.length);
      for (let i = 0; i < luma.length; i++) luma[i] = r.luma[i]! / 256;
      fp = await fingerprintGrid({ luma, width: r.width, height: r.height });
    } else if (event.image) {
      fp = await fingerprintGrid(await canonicalLuma(event.image, { maxPixels: this.core.maxImagePixels, cmykAsRgb: true }));
    } else return;
    await this.write(media.accountId, media.id, -1, null, fp);
  }

  /** MEDIA_EVENTS: one sampled frame of a video, indexed like a still image under its frame key. */
  async videoFrame(event: VideoFrameEvent): Promise<void> {
    const { media } = event;
    if (event.index >= FRAMES_PER_MEDIA) return; // past 29 hours a key would name another media's frame
    const fp = await fingerprintPool().fingerprint(event, { fastThreshold: VIDEO_FAST_THRESHOLD });
    await this.write(media.accountId, media.id, event.index, event.time, fp);
  }

  /**
   * One row and its postings, in one transaction. A row indexed again (the same media or frame)
   * is replaced: the delete trigger purges its old postings first.
   */
  private async write(accountId: number, mediaId: number, frame: number, frameTime: number | null, fp: VisualFingerprint): Promise<void> {
    const f = fp.features;
    await this.db.transaction(async (m) => {
      await m.query('DELETE FROM visual_index WHERE media_id = $1 AND frame = $2', [mediaId, frame]);
      const rows: { entry: string }[] = await m.query(
        `INSERT INTO visual_index (media_id, frame, frame_time, account_id, width, height, count, points, descriptors, dhash, thumb, bands)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING entry`,
        [
          mediaId, frame, frameTime, accountId, f.width, f.height, f.count,
          Buffer.from(f.points.buffer, f.points.byteOffset, f.points.byteLength),
          Buffer.from(f.descriptors), Buffer.from(fp.dhash), Buffer.from(fp.thumb), dhashBands(accountId, fp.dhash),
        ],
      );
      await this.post(m, accountId, Number(rows[0]!.entry), f);
    });
  }

  /** Appends an entry's postings to its buckets' rows and records the buckets on its row. */
  private async post(m: EntityManager, accountId: number, entry: number, f: Pick<OrbFeatures, 'descriptors' | 'count' | 'points'>): Promise<void> {
    const p = entryPostings(entry, f);
    await m.query(
      `INSERT INTO visual_postings (account_id, bucket, postings)
       SELECT $1, b, substring($4::bytea FROM o + 1 FOR c * ${POSTING_BYTES}) FROM unnest($2::int[], $3::int[], $5::int[]) AS t(b, o, c) ORDER BY b
       ON CONFLICT (account_id, bucket) DO UPDATE SET postings = visual_postings.postings || EXCLUDED.postings`,
      [accountId, p.buckets, p.offsets, p.postings, p.counts],
    );
    await m.query('UPDATE visual_index SET buckets = $2 WHERE entry = $1', [entry, p.buckets]);
  }

  /** MEDIA_EVENTS: nothing to do: the rows went with the media (ON DELETE CASCADE), their postings with them (trigger). */
  async deleted(): Promise<void> {}

  /**
   * Rows indexed before the shared index existed (buckets NULL) are posted on first use of their
   * account, by whichever processes get there, each batch by one of them (SKIP LOCKED).
   */
  private backfill(accountId: number): Promise<void> {
    let done = this.backfilled.get(accountId);
    if (!done) {
      done = (async () => {
        for (;;) {
          const posted = await this.db.transaction(async (m) => {
            const rows: (IndexRow & { entry: string })[] = await m.query(
              `SELECT entry, count, points, descriptors, dhash FROM visual_index WHERE account_id = $1 AND buckets IS NULL
               ORDER BY entry LIMIT ${BACKFILL_BATCH} FOR UPDATE SKIP LOCKED`,
              [accountId],
            );
            for (const r of rows) {
              await m.query('UPDATE visual_index SET bands = $2 WHERE entry = $1', [r.entry, dhashBands(accountId, bytes(r.dhash))]);
              await this.post(m, accountId, Number(r.entry), { count: r.count, descriptors: bytes(r.descriptors), points: floats(r.points) });
            }
            return rows.length;
          });
          if (posted < BACKFILL_BATCH) return;
        }
      })();
      this.backfilled.set(accountId, done);
      done.catch(() => this.backfilled.delete(accountId));
    }
    return done;
  }

  /**
   * Entries (images and frames) of an account: picks the key length, as VisualIndex does when it
   * grows. Counted again in the background once stale, so a query never waits for the count. A
   * zero is never trusted: counting an empty account costs nothing, and a stale zero would hide
   * another process's first registrations (vote() skips an account counted empty).
   */
  private async entries(accountId: number): Promise<number> {
    const count = async () => {
      const rows: { n: number }[] = await this.db.query('SELECT count(*)::int AS n FROM visual_index WHERE account_id = $1', [accountId]);
      this.counts.set(accountId, { n: rows[0]!.n, at: Date.now() });
      return rows[0]!.n;
    };
    const known = this.counts.get(accountId);
    if (!known?.n) return count();
    if (Date.now() - known.at > COUNT_TTL_MS && !known.refresh) {
      known.refresh = count().catch(() => {
        known.refresh = undefined;
      });
    }
    return known.n;
  }

  /**
   * Exact-copy hits and vote candidates of a query fingerprint; `also` are more fingerprints voted
   * in the same statement (as votes() would), their candidates in `alsoVoted`.
   */
  async candidates(
    accountId: number,
    query: VisualFingerprint,
    max: number,
    also: { fingerprint: VisualFingerprint; wide: boolean }[] = [],
  ): Promise<{ exact: number[]; voted: Candidate[]; alsoVoted: Candidate[][] }> {
    await this.backfill(accountId);
    const [exact, [voted, ...alsoVoted]] = await Promise.all([
      this.exact(accountId, query),
      this.vote(accountId, [query.features, ...also.map((q) => q.fingerprint.features)], max, [false, ...also.map((q) => q.wide)]),
    ]);
    return { exact, voted: voted!, alsoVoted };
  }

  /**
   * Vote candidates of several query fingerprints (an identification's fallbacks: mirror,
   * reductions) in one statement: each bucket range is read once whichever fingerprints ask it,
   * and each fingerprint gets its own votes. No exact-copy lookup (fallbacks are never exact).
   * A `wide` vote scores many more entries on their stored descriptors (WIDE_SCORED_MIN) and, in a
   * large account, keeps those with fewer votes (WIDE_MIN_VOTES).
   */
  async votes(accountId: number, queries: { fingerprint: VisualFingerprint; wide: boolean }[], max: number): Promise<Candidate[][]> {
    if (!queries.length) return [];
    await this.backfill(accountId);
    return this.vote(accountId, queries.map((q) => q.fingerprint.features), max, queries.map((q) => q.wide));
  }

  /** Still images whose dHash is within 4 bits and whose thumbnails agree (VisualIndex.exact). */
  private async exact(accountId: number, query: VisualFingerprint): Promise<number[]> {
    const rows: { media_id: string; dhash: Buffer; thumb: Buffer; width: number; height: number }[] = await this.db.query(
      'SELECT media_id, dhash, thumb, width, height FROM visual_index WHERE bands && $2::bigint[] AND account_id = $1 AND frame = -1',
      [accountId, dhashBands(accountId, query.dhash)],
    );
    return rows
      .filter((r) => Math.abs(r.width / r.height / query.aspect - 1) <= 0.03 && hamming64(bytes(r.dhash), query.dhash) <= 4 && sameThumbnail(bytes(r.thumb), query.thumb))
      .map((r) => Number(r.media_id))
      .sort((a, b) => a - b);
  }

  /**
   * Index votes (VisualIndex.vote) of each query: the postings of the buckets its descriptors fall
   * in, skipping stop-word buckets, read for all the queries in one statement; entries resolved to
   * their keys by a second, which also drops any entry whose row is gone.
   */
  private async vote(accountId: number, queries: Pick<OrbFeatures, 'descriptors' | 'count'>[], max: number, wide = queries.map(() => false)): Promise<Candidate[][]> {
    const n = await this.entries(accountId);
    if (!n || !queries.some((f) => f.count)) return queries.map(() => []);
    const bits = sharedBits(n);
    const minVotes = wide.map((w) => minVotesFor(w, bits));
    const merged = mergedRanges(queries.map((f) => queryRanges(f.descriptors, f.count, bits)));
    const rows = await readPostings(this.db, accountId, merged, sharedCap(n, bits), bits === MAX_BITS ? 'buckets' : 'ranges');
    const tallies = queries.map((f, k) => new VoteTally(f.descriptors, f.count, merged.ranges[k]!));
    for (const row of rows) for (const [k, i] of merged.askers[row.r]!) tallies[k]!.add(i, row.postings);
    // The entries that could win are scored on their stored descriptors, fetched with their keys
    // in one statement (which also drops any entry whose row is gone). Four times what the vote
    // keeps: meetings overcount votes (a descriptor meets an entry in several tables, or meets a
    // stored descriptor too far from it).
    const wanted = [...new Set(tallies.flatMap((t, k) => t.contenders(minVotes[k]!, Math.max(scoredFor(wide[k]!), (max * 2 + 8) * 4))))].sort((a, b) => a - b);
    if (!wanted.length) return queries.map(() => []);
    // One row probe per descriptor, in entry order (a wide vote asks ~10,000): as a plain join the
    // planner merge-joined them with a scan of the account's whole index (+30 ms at 100,000 media).
    const found: { entry: string; j: number; media_id: string; frame: number; d: Buffer }[] = await this.db.query(
      `SELECT t.e AS entry, t.j, v.media_id, v.frame, substring(v.descriptors FROM t.j * ${DESCRIPTOR_BYTES} + 1 FOR ${DESCRIPTOR_BYTES}) AS d
       FROM unnest($2::bigint[], $3::int[]) AS t(e, j)
       CROSS JOIN LATERAL (SELECT media_id, frame, descriptors FROM visual_index v WHERE v.entry = t.e AND v.account_id = $1 OFFSET 0) v`,
      [accountId, wanted.map((k) => Math.floor(k / 0x10000)), wanted.map((k) => k % 0x10000)],
    );
    const stored = new Map(found.filter((f) => f.d.length === DESCRIPTOR_BYTES).map((f) => [featureKey(Number(f.entry), f.j), bytes(f.d)]));
    const keyOf = new Map(found.map((f) => [Number(f.entry), frameKey(Number(f.media_id), f.frame)]));
    return tallies.map((t, k) => {
      const ranked = t
        .top(stored, minVotes[k]!, max * 2 + 8)
        .map((c) => ({ id: keyOf.get(c.entry)!, votes: c.votes }))
        .sort((a, b) => b.votes - a.votes || a.id - b.id);
      // Most votes first: those under MIN_VOTES are the tail.
      const strong = ranked.filter((c) => c.votes >= MIN_VOTES).length;
      return ranked.slice(0, Math.min(max, strong + FEW_VOTES_KEPT));
    });
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

  /** Size of an account's index (benchmarks, operations): entries and postings. */
  async stats(accountId: number): Promise<{ entries: number; postings: number; buckets: number }> {
    const rows: { entries: number; postings: string; buckets: number }[] = await this.db.query(
      `SELECT (SELECT count(*)::int FROM visual_index WHERE account_id = $1) AS entries,
              (SELECT coalesce(sum(n_postings), 0)::bigint FROM visual_postings WHERE account_id = $1) AS postings,
              (SELECT count(*)::int FROM visual_postings WHERE account_id = $1) AS buckets`,
      [accountId],
    );
    return { entries: rows[0]!.entries, postings: Number(rows[0]!.postings), buckets: rows[0]!.buckets };
  }
}
