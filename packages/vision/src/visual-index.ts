/**
 * In-memory candidate retrieval for one account: locality-sensitive hashing of 256-bit ORB
 * descriptors (bit sampling, the classic LSH family for the Hamming distance) with per-image voting.
 * A bucket neighbour votes only when its true distance to the query descriptor is small (the
 * indexed descriptors are kept), and the tables rehash with longer keys as the collection grows.
 *
 * Why not brute force: it is linear in the collection (the design note measured ~0.5 s per query on
 * 34 images x 500 descriptors). Why not an HNSW index (usearch): 100,000 media x 500 descriptors
 * is 50 M vectors, whose graph alone would need several GB and hours to build on two cores; LSH
 * postings cost 8 bytes each and insertion is O(1). Each table keys a descriptor by `bits` sampled
 * bit positions; a descriptor of a copy (Hamming distance ~10-40 out of 256 after JPEG, resize,
 * rotation) lands in the same bucket as the original's in at least one of `tables` tables often
 * enough that the original collects several votes, while a random descriptor's votes are spread
 * over the whole collection. Votes only pick candidates: RANSAC validation decides.
 */
import { hamming64, sameThumbnail, THUMB_SIDE } from './fingerprint';
import { DESCRIPTOR_BYTES } from './orb';

export interface VisualIndexOptions {
  /** Number of hash tables (default 4). */
  tables?: number;
  /** Bits per key to start with (default 12); grows by 2 as the index fills, up to 22. */
  bits?: number;
  /** Descriptors of a media put in the tables (default 256, spread over the image). */
  perMedia?: number;
  /** Largest Hamming distance (of 256 bits) at which a bucket neighbour votes (default 44). */
  maxDistance?: number;
}

export interface IndexEntry {
  descriptors: Uint8Array;
  count: number;
  /** Keypoint coordinates (x, y per feature), to spread the indexed subset over the image. */
  points: Float32Array;
  dhash: Uint8Array;
  thumb: Uint8Array;
  aspect: number;
}

export interface VoteOptions {
  /** Most candidates returned (default 16). */
  max?: number;
  /** Fewest votes for a candidate (default 4). */
  minVotes?: number;
}

export interface Candidate {
  id: number;
  votes: number;
}

/** Hamming distance of two descriptors as eight 32-bit words (SWAR popcount: ~4x a byte table). */
function hamming256(a: Uint32Array, ao: number, b: Uint32Array, bo: number): number {
  let d = 0;
  for (let i = 0; i < 8; i++) {
    let x = a[ao + i]! ^ b[bo + i]!;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    d += (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
  }
  return d;
}

/** Descriptors copied into 32-bit words (the query's bytes may sit at any offset of any buffer). */
function words(bytes: Uint8Array, count: number): Uint32Array {
  const out = new Uint32Array(count * 8);
  new Uint8Array(out.buffer).set(bytes.subarray(0, count * DESCRIPTOR_BYTES));
  return out;
}

/**
 * Which descriptors of a media go in the tables: round-robin over a 4x4 grid of cells (in ORB's
 * order within a cell), so that any crop keeps its share of indexed points. The strongest points
 * of an image often crowd into one textured region; a 25%-area crop elsewhere would find none.
 */
export function spreadSelection(count: number, max: number, points: Float32Array): number[] {
  if (count <= max) return Array.from({ length: count }, (_, i) => i);
  let w = 1, h = 1;
  for (let i = 0; i < count; i++) {
    w = Math.max(w, points[2 * i] + 1);
    h = Math.max(h, points[2 * i + 1] + 1);
  }
  const cells: number[][] = Array.from({ length: 16 }, () => []);
  for (let i = 0; i < count; i++) {
    const cx = Math.min(3, Math.floor((points[2 * i] / w) * 4));
    const cy = Math.min(3, Math.floor((points[2 * i + 1] / h) * 4));
    cells[cy * 4 + cx].push(i);
  }
  const out: number[] = [];
  for (let r = 0; out.length < max; r++) {
    for (const c of cells) if (r < c.length && out.length < max) out.push(c[r]);
  }
  return out.sort((a, b) => a - b);
}

/** Deterministic bit positions: the same for every process, so nothing about the index is random. */
function samplePositions(tables: number, bits: number): Uint16Array {
  const out = new Uint16Array(tables * bits);
  let state = 0x9e3779b9;
  const next = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0);
  for (let t = 0; t < tables; t++) {
    const chosen = new Set<number>();
    while (chosen.size < bits) chosen.add(next() % (DESCRIPTOR_BYTES * 8));
    out.set([...chosen], t * bits);
  }
  return out;
}

/** Most bits per key: 4 M buckets per table. */
export const MAX_BITS = 22;
/**
 * Average postings per bucket before the tables are rebuilt with 2 more bits: keeps the postings a
 * query walks (query descriptors x tables x occupancy) nearly constant as the collection grows.
 */
export const LOAD = 8;
/** Tables of the shared index (PostgreSQL postings); the in-memory index defaults to the same. */
export const LSH_TABLES = 4;
const SHARED_POSITIONS = samplePositions(LSH_TABLES, MAX_BITS);

/**
 * The MAX_BITS-bit key of descriptor `offset` in table `table`. Its first `bits` bits are the key
 * at `bits` bits: a coarser bucket is a contiguous range of fine keys, which lets an index stored
 * once at full resolution be read at the resolution the collection's size calls for.
 */
export function lshKey(d: Uint8Array, offset: number, table: number): number {
  let k = 0;
  const base = table * MAX_BITS;
  for (let b = 0; b < MAX_BITS; b++) {
    const p = SHARED_POSITIONS[base + b];
    k = (k << 1) | ((d[offset + (p >> 3)] >> (p & 7)) & 1);
  }
  return k >>> 0;
}

/** Candidate retrieval's stop-word cap: buckets far above the average occupancy are skipped. */
export function bucketCap(postingsPerTable: number, bits: number): number {
  return Math.max(256, Math.ceil((16 * postingsPerTable) / (1 << bits)));
}

export class VisualIndex {
  readonly tables: number;
  private keyBits: number;
  readonly perMedia: number;
  private readonly positions: Uint16Array;
  private heads: Int32Array[] = [];
  private bucketSize: Int32Array[] = [];
  /** Descriptors of each slot in the tables (and in the store). */
  private indexed = new Uint16Array(1024);
  private next = new Int32Array(1 << 16);
  /** Posting -> indexed descriptor number (slot * perMedia + i). */
  private owner = new Int32Array(1 << 16);
  private postings = 0;
  /** The indexed descriptors themselves, perMedia x 32 bytes per slot: votes need the true distance. */
  private store = new Uint8Array(0);
  readonly maxDistance: number;
  // Per slot (one per media ever added; deleted media leave a tombstone until the index is rebuilt).
  private ids: number[] = [];
  private alive = new Uint8Array(1024);
  private dhash = new Uint8Array(1024 * 8);
  private thumbs = new Uint8Array(1024 * THUMB_SIDE * THUMB_SIDE);
  private aspects = new Float32Array(1024);
  private readonly slotOf = new Map<number, number>();
  private dead = 0;
  // Scratch for voting, sized with the slots.
  private votes = new Int32Array(1024);
  private stamp = new Int32Array(1024);
  private round = 0;

  constructor(options: VisualIndexOptions = {}) {
    this.tables = options.tables ?? 4;
    this.keyBits = options.bits ?? 12;
    this.perMedia = options.perMedia ?? 256;
    this.maxDistance = options.maxDistance ?? 44;
    if (this.perMedia > 512) throw new RangeError('perMedia must be at most 512');
    this.store = new Uint8Array(1024 * this.perMedia * DESCRIPTOR_BYTES);
    if (this.keyBits < 8 || this.keyBits > MAX_BITS) throw new RangeError(`bits must be within 8..${MAX_BITS}`);
    // Positions are drawn for MAX_BITS; a key uses the first `bits` of its table's.
    this.positions = samplePositions(this.tables, MAX_BITS);
    this.rehash(this.keyBits);
  }

  /** Starting key length for an index about to receive `media` media: skips the rehashes of a warm-up. */
  static bitsFor(media: number, perMedia = 256): number {
    let bits = 12;
    while (bits < MAX_BITS && media * perMedia > LOAD * (1 << bits)) bits += 2;
    return bits;
  }

  /** Bits per key now. */
  get bits(): number {
    return this.keyBits;
  }

  /** Rebuilds the tables with `bits` bits per key from the stored descriptors, dropping tombstones. */
  private rehash(bits: number): void {
    this.keyBits = bits;
    this.heads = Array.from({ length: this.tables }, () => new Int32Array(1 << bits).fill(-1));
    this.bucketSize = Array.from({ length: this.tables }, () => new Int32Array(1 << bits));
    this.postings = 0;
    for (let slot = 0; slot < this.ids.length; slot++) {
      if (!this.alive[slot]) continue;
      for (let j = 0; j < this.indexed[slot]!; j++) this.post(slot * this.perMedia + j);
    }
  }

  /** Puts stored descriptor `d` in every table. */
  private post(d: number): void {
    this.growPostings(this.tables);
    for (let t = 0; t < this.tables; t++) {
      const k = this.key(this.store, d * DESCRIPTOR_BYTES, t);
      const p = this.postings++;
      this.owner[p] = d;
      this.next[p] = this.heads[t]![k]!;
      this.heads[t]![k] = p;
      this.bucketSize[t]![k]!++;
    }
  }

  /** Media currently indexed (tombstones excluded). */
  get size(): number {
    return this.slotOf.size;
  }

  /** Share of slots that are tombstones: the owner rebuilds the index when this grows large. */
  get deadRatio(): number {
    return this.ids.length ? this.dead / this.ids.length : 0;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  private key(d: Uint8Array, offset: number, table: number): number {
    let k = 0;
    const base = table * MAX_BITS;
    for (let b = 0; b < this.keyBits; b++) {
      const p = this.positions[base + b];
      k = (k << 1) | ((d[offset + (p >> 3)] >> (p & 7)) & 1);
    }
    return k >>> 0;
  }

  private growSlots(): void {
    const n = this.alive.length * 2;
    const grow = <T extends Uint8Array | Int32Array | Float32Array>(a: T, per = 1): T => {
      const b = new (a.constructor as new (n: number) => T)(n * per);
      b.set(a);
      return b;
    };
    this.alive = grow(this.alive);
    const indexed = new Uint16Array(n);
    indexed.set(this.indexed);
    this.indexed = indexed;
    this.dhash = grow(this.dhash, 8);
    this.thumbs = grow(this.thumbs, THUMB_SIDE * THUMB_SIDE);
    this.aspects = grow(this.aspects);
    this.votes = grow(this.votes);
    this.stamp = grow(this.stamp);
    this.store = grow(this.store, this.perMedia * DESCRIPTOR_BYTES);
  }

  private growPostings(need: number): void {
    if (this.postings + need <= this.next.length) return;
    let n = this.next.length;
    while (this.postings + need > n) n *= 2;
    const next = new Int32Array(n);
    next.set(this.next.subarray(0, this.postings));
    const owner = new Int32Array(n);
    owner.set(this.owner.subarray(0, this.postings));
    this.next = next;
    this.owner = owner;
  }

  /** Adds (or replaces) a media. */
  add(id: number, entry: IndexEntry): void {
    if (this.slotOf.has(id)) this.remove(id);
    const slot = this.ids.length;
    if (slot >= this.alive.length) this.growSlots();
    this.ids.push(id);
    this.slotOf.set(id, slot);
    this.alive[slot] = 1;
    this.dhash.set(entry.dhash.subarray(0, 8), slot * 8);
    this.thumbs.set(entry.thumb.subarray(0, THUMB_SIDE * THUMB_SIDE), slot * THUMB_SIDE * THUMB_SIDE);
    this.aspects[slot] = entry.aspect;
    const chosen = spreadSelection(entry.count, this.perMedia, entry.points);
    this.indexed[slot] = chosen.length;
    for (let j = 0; j < chosen.length; j++) {
      const d = slot * this.perMedia + j;
      const src = chosen[j]! * DESCRIPTOR_BYTES;
      this.store.set(entry.descriptors.subarray(src, src + DESCRIPTOR_BYTES), d * DESCRIPTOR_BYTES);
      this.post(d);
    }
    if (this.keyBits < MAX_BITS && this.postings / this.tables > LOAD * (1 << this.keyBits)) this.rehash(Math.min(MAX_BITS, this.keyBits + 2));
  }

  /** Removes a media at once: its postings stay as a tombstone that never votes. */
  remove(id: number): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.alive[slot] = 0;
    this.slotOf.delete(id);
    this.dead++;
  }

  /** Media whose indexed descriptors share the most buckets with the query's, best first. */
  vote(descriptors: Uint8Array, count: number, options: VoteOptions = {}): Candidate[] {
    const max = options.max ?? 16;
    const minVotes = options.minVotes ?? 4;
    if (++this.round >= 0x7fffffff) {
      this.round = 1;
      this.stamp.fill(0);
    }
    const touched: number[] = [];
    const votes = this.votes;
    const stamp = this.stamp;
    // Each query descriptor votes at most once per media: several tables hitting the same media
    // (or several of its descriptors in one bucket) count once.
    const marker = this.markerFor();
    const store = new Uint32Array(this.store.buffer, this.store.byteOffset, this.store.byteLength >> 2);
    const qw = words(descriptors, count);
    const per = this.perMedia;
    // Buckets far above the average occupancy hold descriptors of flat or repetitive texture that
    // every image has (ORB bits are far from uniform): like stop words, they identify nothing.
    const cap = bucketCap(this.postings / this.tables, this.keyBits);
    for (let i = 0; i < count; i++) {
      const mark = i + 1;
      const q = i * DESCRIPTOR_BYTES;
      for (let t = 0; t < this.tables; t++) {
        const k = this.key(descriptors, q, t);
        if (this.bucketSize[t][k] > cap) continue;
        let p = this.heads[t][k];
        while (p >= 0) {
          const d = this.owner[p];
          const s = (d / per) | 0;
          if (marker[s] !== mark && this.alive[s] && hamming256(qw, i * 8, store, d * 8) <= this.maxDistance) {
            marker[s] = mark;
            if (stamp[s] !== this.round) {
              stamp[s] = this.round;
              votes[s] = 0;
              touched.push(s);
            }
            votes[s]++;
          }
          p = this.next[p];
        }
      }
    }
    marker.fill(0, 0, this.ids.length);
    const out: Candidate[] = [];
    for (const s of touched) if (votes[s] >= minVotes) out.push({ id: this.ids[s], votes: votes[s] });
    out.sort((a, b) => b.votes - a.votes || a.id - b.id);
    return out.slice(0, max);
  }

  private marker = new Int32Array(0);
  private markerFor(): Int32Array {
    if (this.marker.length < this.alive.length) this.marker = new Int32Array(this.alive.length);
    return this.marker;
  }

  /** The exact-copy fast path: media whose dHash is within 4 bits and whose thumbnails agree. */
  exact(entry: Pick<IndexEntry, 'dhash' | 'thumb' | 'aspect'>): number[] {
    const out: number[] = [];
    const side = THUMB_SIDE * THUMB_SIDE;
    for (const [id, s] of this.slotOf) {
      if (Math.abs(this.aspects[s] / entry.aspect - 1) > 0.03) continue;
      if (hamming64(this.dhash.subarray(s * 8, s * 8 + 8), entry.dhash) > 4) continue;
      if (sameThumbnail(this.thumbs.subarray(s * side, (s + 1) * side), entry.thumb)) out.push(id);
    }
    return out;
  }

  /** Bytes held by the index (typed arrays and the id map, estimated at 40 bytes an entry). */
  memoryBytes(): number {
    const arrays = [this.store, ...this.bucketSize, this.next, this.owner, this.alive, this.dhash, this.thumbs, this.aspects, this.votes, this.stamp, this.marker, ...this.heads];
    return arrays.reduce((s, a) => s + a.byteLength, 0) + this.ids.length * 8 + this.slotOf.size * 40;
  }
}
