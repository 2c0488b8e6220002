/**
 * An archive of synthetic media for the index benchmarks, written as real rows (media,
 * visual_index with its entry, buckets and bands, visual_postings) in bulk: the postings of a whole
 * batch of levels are spilled to files by bucket range, then written once per bucket row (the
 * per-registration path appends to ~1,000 rows per media: fine for one upload, far too slow to fill
 * a million-media archive in a benchmark's time).
 *
 * Descriptors are derived from real photographs, as the issue asks: each synthetic media is a crop
 * and scale of one real ORB set mixed with a quarter of another, each descriptor with 4-24 bits
 * flipped, so that buckets fill as unevenly as with real photographs (random descriptors spread
 * evenly and understate the cost). Their dHashes are random (an archive of distinct pictures).
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { DataSource } from 'typeorm';
import { canonicalLuma, dhashBands, entryPostings, fingerprintGrid, MAX_BITS, POSTING_BYTES, type OrbFeatures } from '@filigrane/vision';

export interface SourceSet {
  descriptors: Uint8Array;
  points: Float32Array;
  count: number;
  width: number;
  height: number;
}

/** The ORB sets of real photographs, as registration computes them. */
export async function sourceSets(images: Buffer[]): Promise<SourceSet[]> {
  const out: SourceSet[] = [];
  for (const image of images) {
    const fp = await fingerprintGrid(await canonicalLuma(image));
    out.push({ ...fp.features });
  }
  return out;
}

/** Real ORB sets of photographs for synthetic media: each photo at 4 scales and 4 rotations. */
export async function photoSourceSets(files: string[]): Promise<SourceSet[]> {
  const variants: Buffer[] = [];
  for (const f of files) {
    const meta = await sharp(f).metadata();
    for (const scale of [1, 0.8, 0.65, 0.5]) {
      for (const angle of [0, 90, 180, 270]) {
        variants.push(await sharp(f).rotate(angle).resize(Math.round(meta.width! * scale)).jpeg({ quality: 90 }).toBuffer());
      }
    }
  }
  return sourceSets(variants);
}

/** xorshift32 */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), (s >>> 0) / 2 ** 32);
}

const MAX_FEATURES = 500;

/** Synthetic media `k`: a crop/scale of one source set mixed with a quarter of another, bits flipped. */
export function syntheticFeatures(sources: SourceSet[], k: number): OrbFeatures & { dhash: Uint8Array; thumb: Uint8Array } {
  const r = rng(0x9e3779b9 ^ Math.imul(k + 1, 2654435761));
  const a = sources[Math.floor(r() * sources.length)]!;
  const b = sources[Math.floor(r() * sources.length)]!;
  const scale = 1 + r(); // crop keeps 1/scale of each side
  const w = a.width / scale, h = a.height / scale;
  const x0 = r() * (a.width - w), y0 = r() * (a.height - h);
  const picked: { src: SourceSet; i: number; x: number; y: number }[] = [];
  for (let i = 0; i < a.count; i++) {
    const x = a.points[2 * i]!, y = a.points[2 * i + 1]!;
    if (x >= x0 && x < x0 + w && y >= y0 && y < y0 + h) picked.push({ src: a, i, x: (x - x0) * scale, y: (y - y0) * scale });
  }
  for (let i = 0; i < b.count; i++) if (r() < 0.25) picked.push({ src: b, i, x: r() * a.width, y: r() * a.height });
  const count = Math.min(MAX_FEATURES, picked.length);
  const descriptors = new Uint8Array(count * 32);
  const points = new Float32Array(count * 2);
  for (let j = 0; j < count; j++) {
    const p = picked[j]!;
    descriptors.set(p.src.descriptors.subarray(p.i * 32, p.i * 32 + 32), j * 32);
    const flips = 4 + Math.floor(r() * 21);
    for (let f = 0; f < flips; f++) {
      const bit = Math.floor(r() * 256);
      descriptors[j * 32 + (bit >> 3)] ^= 1 << (bit & 7);
    }
    points[2 * j] = p.x;
    points[2 * j + 1] = p.y;
  }
  const dhash = new Uint8Array(8).map(() => Math.floor(r() * 256));
  const thumb = new Uint8Array(256).map(() => Math.floor(r() * 256));
  return { width: a.width, height: a.height, count, descriptors, points, dhash, thumb };
}

const PARTITIONS = 64;
const PARTITION_SPAN = (4 << MAX_BITS) / PARTITIONS;
const RECORD = 4 + POSTING_BYTES;

/** Postings spilled to one file per bucket range, then written as bucket rows. */
class PostingSpill {
  private readonly dir = mkdtempSync(join(tmpdir(), 'filigrane-postings-'));
  private readonly buffers = Array.from({ length: PARTITIONS }, () => ({ buf: Buffer.alloc(1 << 20), used: 0 }));
  private readonly fds = Array.from({ length: PARTITIONS }, (_, p) => openSync(join(this.dir, `${p}`), 'a'));

  add(p: ReturnType<typeof entryPostings>): void {
    for (const [k, bucket] of p.buckets.entries()) {
      const part = Math.floor(bucket / PARTITION_SPAN);
      const b = this.buffers[part]!;
      for (let c = 0; c < p.counts[k]!; c++) {
        if (b.used + RECORD > b.buf.length) this.drain(part);
        b.buf.writeInt32LE(bucket, b.used);
        p.postings.copy(b.buf, b.used + 4, p.offsets[k]! + c * POSTING_BYTES, p.offsets[k]! + (c + 1) * POSTING_BYTES);
        b.used += RECORD;
      }
    }
  }

  private drain(part: number): void {
    const b = this.buffers[part]!;
    writeSync(this.fds[part]!, b.buf, 0, b.used);
    b.used = 0;
  }

  /** Every spilled posting into visual_postings, one statement per ~20,000 bucket rows. */
  async write(db: DataSource, accountId: number): Promise<void> {
    for (let part = 0; part < PARTITIONS; part++) {
      this.drain(part);
      closeSync(this.fds[part]!);
      const data = readFileSync(join(this.dir, `${part}`));
      rmSync(join(this.dir, `${part}`)); // its bytes are in memory now: the disk holds one copy at a time
      const n = data.length / RECORD;
      if (!n) continue;
      // Counting sort by bucket within the partition's range.
      const base = part * PARTITION_SPAN;
      const start = new Uint32Array(PARTITION_SPAN + 1);
      for (let i = 0; i < n; i++) start[data.readInt32LE(i * RECORD) - base + 1]!++;
      for (let i = 0; i < PARTITION_SPAN; i++) start[i + 1]! += start[i]!;
      const sorted = Buffer.alloc(n * POSTING_BYTES);
      const fill = start.slice(0, PARTITION_SPAN);
      for (let i = 0; i < n; i++) {
        const slot = data.readInt32LE(i * RECORD) - base;
        data.copy(sorted, fill[slot]! * POSTING_BYTES, i * RECORD + 4, (i + 1) * RECORD);
        fill[slot]!++;
      }
      let buckets: number[] = [], offsets: number[] = [], counts: number[] = [];
      let from = 0;
      const flush = async (to: number) => {
        if (!buckets.length) return;
        await db.query(
          `INSERT INTO visual_postings (account_id, bucket, postings)
           SELECT $1, b, substring($4::bytea FROM o + 1 FOR c * ${POSTING_BYTES}) FROM unnest($2::int[], $3::int[], $5::int[]) AS t(b, o, c) ORDER BY b
           ON CONFLICT (account_id, bucket) DO UPDATE SET postings = visual_postings.postings || EXCLUDED.postings`,
          [accountId, buckets, offsets, sorted.subarray(from * POSTING_BYTES, to * POSTING_BYTES), counts],
        );
        buckets = []; offsets = []; counts = [];
        from = to;
      };
      for (let s = 0; s < PARTITION_SPAN; s++) {
        const c = start[s + 1]! - start[s]!;
        if (!c) continue;
        buckets.push(base + s);
        offsets.push((start[s]! - from) * POSTING_BYTES);
        counts.push(c);
        if (buckets.length >= 20_000) await flush(start[s + 1]!);
      }
      await flush(n);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Synthetic media `first`..`first + n - 1` of an account: media rows, visual_index rows (all their
 * features, as registration stores them), and their postings.
 */
export async function loadArchive(db: DataSource, accountId: number, sources: SourceSet[], first: number, n: number, progress?: (done: number) => void): Promise<void> {
  const spill = new PostingSpill();
  const BATCH = 1000;
  for (let done = 0; done < n; done += BATCH) {
    const m = Math.min(BATCH, n - done);
    const from = first + done;
    const ids: { id: string }[] = await db.query(
      `INSERT INTO media (account_id, path, parent, name, type, kind, width, height, format)
       SELECT $1, '/bench/archive/' || g || '.jpg', '/bench/archive', g || '.jpg', 'image', 'plain', 512, 384, 'jpeg'
       FROM generate_series($2::int, $3::int) g RETURNING id`,
      [accountId, from, from + m - 1],
    );
    const entries: { e: string }[] = await db.query(`SELECT nextval('visual_index_entry_seq') AS e FROM generate_series(1, $1)`, [m]);
    const params: unknown[] = [];
    const tuples: string[] = [];
    for (const [k, row] of ids.entries()) {
      const f = syntheticFeatures(sources, from + k);
      const entry = Number(entries[k]!.e);
      const p = entryPostings(entry, f);
      spill.add(p);
      params.push(
        row.id, entry, accountId, f.width, f.height, f.count, Buffer.from(f.points.buffer), Buffer.from(f.descriptors),
        Buffer.from(f.dhash), Buffer.from(f.thumb), dhashBands(accountId, f.dhash), p.buckets,
      );
      const b = k * 12;
      tuples.push(`(${Array.from({ length: 12 }, (_, i) => `$${b + i + 1}`).join(', ')})`);
    }
    await db.query(
      `INSERT INTO visual_index (media_id, entry, account_id, width, height, count, points, descriptors, dhash, thumb, bands, buckets)
       VALUES ${tuples.join(', ')}`,
      params,
    );
    progress?.(done + m);
  }
  await spill.write(db, accountId);
}
