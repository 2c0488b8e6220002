/**
 * The visual index as postings a database holds once for every process (see docs/visual-index.md):
 * the LSH buckets of VisualIndex, stored at full resolution (MAX_BITS bits, one row per non-empty
 * bucket and table), each posting 6 bytes: the entry (a registered image or video frame) and the
 * indexed feature's number among the entry's stored descriptors. A query reads only the buckets its
 * descriptors fall in, at the resolution the collection's size calls for (a coarse bucket is a range
 * of fine keys); the entries those postings could vote for are then scored on their stored
 * descriptors, so that a bucket neighbour votes only when its true distance to the query descriptor
 * is small, exactly as in memory.
 */
import { DESCRIPTOR_BYTES, type OrbFeatures } from './orb';
import { bucketCap, LOAD, LSH_TABLES, lshKey, MAX_BITS, spreadSelection } from './visual-index';

/**
 * Entry number (u32 LE) + the feature's number in the entry's stored descriptors (u16 LE). Postings
 * once carried the whole descriptor (36 bytes): six times the disk and the transfer per query.
 */
export const POSTING_BYTES = 6;
/** Descriptors of a media put in the index, spread over the image (as VisualIndex's perMedia). */
export const INDEXED_PER_MEDIA = 256;
/**
 * Largest Hamming distance (of 256 bits) at which a bucket neighbour votes: VisualIndex's. Votes
 * counted on a 64-bit sample of the descriptor were tried once: too loose, unrelated synthetic
 * footage then aligned with a registered video; the whole stored descriptor decides.
 */
export const MAX_VOTE_DISTANCE = 44;

/** Bits per key for a collection of `entries` images and frames (VisualIndex.bitsFor's rule). */
export function sharedBits(entries: number): number {
  let bits = 12;
  while (bits < MAX_BITS && entries * INDEXED_PER_MEDIA > LOAD * (1 << bits)) bits += 2;
  return bits;
}

/** Most postings a bucket read at `bits` bits may hold before it counts as a stop word. */
export function sharedCap(entries: number, bits: number): number {
  return bucketCap(entries * INDEXED_PER_MEDIA, bits);
}

export interface EntryPostings {
  /** Distinct buckets, ascending (table << MAX_BITS | key): rows are locked in one order, no deadlock. */
  buckets: number[];
  /** Postings in each bucket. */
  counts: number[];
  /** Byte offset of each bucket's postings in `postings`. */
  offsets: number[];
  postings: Buffer;
}

/** The postings of one entry's features. */
export function entryPostings(entry: number, features: { descriptors: Uint8Array; count: number; points: Float32Array }): EntryPostings {
  if (!Number.isInteger(entry) || entry < 0 || entry > 0xffffffff) throw new RangeError(`entry ${entry} is not a u32`);
  const chosen = spreadSelection(features.count, INDEXED_PER_MEDIA, features.points);
  const byBucket = new Map<number, number[]>();
  for (const j of chosen) {
    for (let t = 0; t < LSH_TABLES; t++) {
      const bucket = t * (1 << MAX_BITS) + lshKey(features.descriptors, j * DESCRIPTOR_BYTES, t);
      const list = byBucket.get(bucket);
      if (list) list.push(j);
      else byBucket.set(bucket, [j]);
    }
  }
  const buckets = [...byBucket.keys()].sort((a, b) => a - b);
  const postings = Buffer.alloc(chosen.length * LSH_TABLES * POSTING_BYTES);
  const counts: number[] = [];
  const offsets: number[] = [];
  let o = 0;
  for (const b of buckets) {
    const list = byBucket.get(b)!;
    offsets.push(o);
    counts.push(list.length);
    for (const j of list) {
      if (j > 0xffff) throw new RangeError(`feature ${j} is not a u16`);
      postings.writeUInt32LE(entry, o);
      postings.writeUInt16LE(j, o + 4);
      o += POSTING_BYTES;
    }
  }
  return { buckets, counts, offsets, postings };
}

/**
 * At most `max` of a query's descriptors for the vote, chosen as the index chooses the ones it
 * stores (spreadSelection: round-robin over a 4x4 grid, so a crop keeps its share). Each descriptor
 * costs one index probe per table and ORB's later points add few votes; registration (RANSAC)
 * still uses all the query's features.
 */
export function votingSubset<F extends Pick<OrbFeatures, 'count' | 'descriptors' | 'points'>>(features: F, max: number): F {
  if (features.count <= max) return features;
  const chosen = spreadSelection(features.count, max, features.points);
  const descriptors = new Uint8Array(chosen.length * DESCRIPTOR_BYTES);
  const points = new Float32Array(chosen.length * 2);
  for (const [k, j] of chosen.entries()) {
    descriptors.set(features.descriptors.subarray(j * DESCRIPTOR_BYTES, (j + 1) * DESCRIPTOR_BYTES), k * DESCRIPTOR_BYTES);
    points[2 * k] = features.points[2 * j]!;
    points[2 * k + 1] = features.points[2 * j + 1]!;
  }
  return { ...features, count: chosen.length, descriptors, points };
}

export interface BucketRanges {
  /** Range [lo, hi) of fine buckets for each distinct coarse bucket the query falls in. */
  lo: number[];
  hi: number[];
  /** Query descriptors asking each range. */
  askers: number[][];
}

/** The buckets a query's descriptors fall in, read at `bits` bits, each range once. */
export function queryRanges(descriptors: Uint8Array, count: number, bits: number): BucketRanges {
  const shift = MAX_BITS - bits;
  const ranges = new Map<number, number[]>();
  for (let i = 0; i < count; i++) {
    for (let t = 0; t < LSH_TABLES; t++) {
      const lo = t * (1 << MAX_BITS) + ((lshKey(descriptors, i * DESCRIPTOR_BYTES, t) >>> shift) << shift);
      const list = ranges.get(lo);
      if (list) list.push(i);
      else ranges.set(lo, [i]);
    }
  }
  const lo = [...ranges.keys()];
  return { lo, hi: lo.map((l) => l + (1 << shift)), askers: lo.map((l) => ranges.get(l)!) };
}

export interface MergedRanges {
  /** Distinct ranges [lo, hi) asked by any of the queries, ascending. */
  lo: number[];
  hi: number[];
  /** For each merged range, the (query, that query's range) pairs asking it. */
  askers: [number, number][][];
  /** Each query's own ranges (VoteTally's input). */
  ranges: BucketRanges[];
}

/**
 * The ranges of several queries (an image and its mirror, its reductions) read in one statement:
 * a range asked by several is read once, and ranges come in bucket order so that neighbouring
 * index probes share the B-tree's pages.
 */
export function mergedRanges(ranges: BucketRanges[]): MergedRanges {
  const byLo = new Map<number, { hi: number; askers: [number, number][] }>();
  ranges.forEach((r, k) =>
    r.lo.forEach((lo, i) => {
      const m = byLo.get(lo);
      if (m) m.askers.push([k, i]);
      else byLo.set(lo, { hi: r.hi[i]!, askers: [[k, i]] });
    }),
  );
  const lo = [...byLo.keys()].sort((a, b) => a - b);
  return { lo, hi: lo.map((l) => byLo.get(l)!.hi), askers: lo.map((l) => byLo.get(l)!.askers), ranges };
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Key of a stored descriptor: an entry (u32) and its feature's number (u16). */
export const featureKey = (entry: number, feature: number) => entry * 0x10000 + feature;

/**
 * Votes of a query's descriptors over the postings of the ranges they asked, in two passes. The
 * postings name (entry, feature) only: `add` keeps each range's postings as read (by reference: at
 * a million media a query meets ~10^5-10^6 postings, and expanding them into per-meeting arrays
 * cost hundreds of MB per search); `contenders` counts meetings per entry (at least its votes: a
 * descriptor may meet an entry in several tables) in typed arrays, keeps the entries that could
 * reach the vote minimum, most meetings first, and names the stored descriptors they need; `top`
 * then counts, as in memory, each query descriptor at most once per entry and only for a stored
 * descriptor within MAX_VOTE_DISTANCE.
 */
export class VoteTally {
  /** Query descriptors as 32-bit words. */
  private readonly query: Uint32Array;
  /** Postings read, with the query descriptors that asked their range. */
  private readonly reads: { askers: number[]; postings: Buffer }[] = [];
  private chosen = new Set<number>();

  constructor(descriptors: Uint8Array, private readonly count: number, private readonly ranges: BucketRanges) {
    this.query = new Uint32Array(count * 8);
    new Uint8Array(this.query.buffer).set(descriptors.subarray(0, count * DESCRIPTOR_BYTES));
  }

  /** The postings of range `range` (one or several stored rows). */
  add(range: number, postings: Buffer): void {
    const askers = this.ranges.askers[range]!;
    this.reads.push({ askers, postings });
  }

  /**
   * At most `max` entries met by at least `minVotes` distinct query descriptors, most meetings
   * first: the only ones `top` scores. An entry met fewer times, or met often by fewer descriptors
   * (one pair meeting in every table), can never reach `minVotes` votes: each query descriptor
   * votes at most once per entry. Returns the stored descriptors (featureKey) their scoring needs.
   */
  contenders(minVotes: number, max: number): number[] {
    const meetings = new MeetingCounts(this.reads.reduce((n, r) => n + Math.floor(r.postings.length / POSTING_BYTES), 0));
    // Walked one query descriptor at a time, so that its meetings with an entry are told apart from another's.
    const byAsker: Buffer[][] = Array.from({ length: this.count }, () => []);
    for (const { askers, postings } of this.reads) for (const i of askers) byAsker[i]!.push(postings);
    for (const [i, reads] of byAsker.entries()) {
      for (const postings of reads) {
        for (let o = 0; o + POSTING_BYTES <= postings.length; o += POSTING_BYTES) meetings.meet(postings.readUInt32LE(o), i);
      }
    }
    this.chosen = new Set(meetings.top(minVotes, max));
    const keys = new Set<number>();
    for (const { postings } of this.reads) {
      for (let o = 0; o + POSTING_BYTES <= postings.length; o += POSTING_BYTES) {
        const entry = postings.readUInt32LE(o);
        if (this.chosen.has(entry)) keys.add(featureKey(entry, postings.readUInt16LE(o + 4)));
      }
    }
    return [...keys];
  }

  /**
   * The contenders with at least `minVotes` votes, most votes first, given their stored
   * descriptors (an entry whose row is gone has none, and no votes).
   */
  top(stored: Map<number, Uint8Array>, minVotes: number, max: number): { entry: number; votes: number }[] {
    const votes = new Map<number, number>();
    const voted = new Set<number>();
    const q = this.query;
    const words = new Uint32Array(8);
    const wordBytes = new Uint8Array(words.buffer);
    for (const { askers, postings } of this.reads) {
      for (let o = 0; o + POSTING_BYTES <= postings.length; o += POSTING_BYTES) {
        const entry = postings.readUInt32LE(o);
        if (!this.chosen.has(entry)) continue;
        const d32 = stored.get(featureKey(entry, postings.readUInt16LE(o + 4)));
        if (!d32) continue;
        wordBytes.set(d32.subarray(0, DESCRIPTOR_BYTES));
        for (const i of askers) {
          const key = entry * this.count + i;
          if (voted.has(key)) continue;
          let d = 0;
          for (let w = 0; w < 8 && d <= MAX_VOTE_DISTANCE; w++) d += popcount32(words[w]! ^ q[i * 8 + w]!);
          if (d > MAX_VOTE_DISTANCE) continue;
          voted.add(key);
          votes.set(entry, (votes.get(entry) ?? 0) + 1);
        }
      }
    }
    const out: { entry: number; votes: number }[] = [];
    for (const [entry, n] of votes) if (n >= minVotes) out.push({ entry, votes: n });
    out.sort((x, y) => y.votes - x.votes || x.entry - y.entry);
    return out.slice(0, max);
  }
}

/**
 * Meetings per entry, and the distinct query descriptors among them, in an open-addressing table
 * of typed arrays sized once for `capacity` distinct entries (at most the postings read): a Map of
 * 10^5 entries per query cost ~10x the bytes.
 */
class MeetingCounts {
  private readonly entries: Uint32Array;
  private readonly counts: Uint32Array;
  /** Distinct query descriptors met, and the last one (plus one): meetings come one descriptor at a time. */
  private readonly distinct: Uint16Array;
  private readonly last: Uint16Array;
  private readonly mask: number;

  constructor(capacity: number) {
    let size = 16;
    while (size < capacity * 2) size *= 2;
    this.entries = new Uint32Array(size);
    this.counts = new Uint32Array(size);
    this.distinct = new Uint16Array(size);
    this.last = new Uint16Array(size);
    this.mask = size - 1;
  }

  /** A meeting of query descriptor `asker` (< 65,535) with `entry`. A count of 0 marks a free slot. */
  meet(entry: number, asker: number): void {
    let slot = Math.imul(entry, 0x9e3779b1) & this.mask;
    while (this.counts[slot] !== 0 && this.entries[slot] !== entry) slot = (slot + 1) & this.mask;
    this.entries[slot] = entry;
    this.counts[slot]! += 1;
    if (this.last[slot] !== asker + 1) {
      this.last[slot] = asker + 1;
      this.distinct[slot]! += 1;
    }
  }

  /** At most `max` entries met by at least `min` distinct descriptors, most meetings first (ties: lower entry first). */
  top(min: number, max: number): number[] {
    const out: [number, number][] = [];
    for (let slot = 0; slot <= this.mask; slot++) if (this.distinct[slot]! >= min && this.counts[slot]! > 0) out.push([this.entries[slot]!, this.counts[slot]!]);
    out.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    return out.slice(0, max).map(([entry]) => entry);
  }
}

/**
 * The exact-copy fast path's keys: the 64-bit dHash cut in 5 bands (13,13,13,13,12 bits). Two
 * hashes within 4 bits agree on at least one band (pigeonhole), so a GIN index on these numbers
 * finds every exact-copy candidate; each number carries the account and the band's position.
 */
export function dhashBands(accountId: number, dhash: Uint8Array): number[] {
  let bits = 0n;
  for (let i = 0; i < 8; i++) bits |= BigInt(dhash[i] ?? 0) << BigInt(8 * i);
  const out: number[] = [];
  for (let band = 0, at = 0; band < 5; band++) {
    const width = band < 4 ? 13 : 12;
    const value = Number((bits >> BigInt(at)) & ((1n << BigInt(width)) - 1n));
    out.push((accountId * 8 + band) * 8192 + value);
    at += width;
  }
  return out;
}
