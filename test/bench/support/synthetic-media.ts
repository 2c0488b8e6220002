import type { DataSource } from 'typeorm';

/** xorshift32 bytes: synthetic descriptors and keypoints, reproducible. */
export function filler(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), s >>> 0);
  return {
    bytes(n: number): Uint8Array {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i += 4) {
        const v = next();
        out[i] = v; out[i + 1] = v >>> 8; out[i + 2] = v >>> 16; out[i + 3] = v >>> 24;
      }
      return out;
    },
    points(n: number, w: number, h: number): Float32Array {
      const p = new Float32Array(2 * n);
      for (let i = 0; i < n; i++) { p[2 * i] = (next() / 2 ** 32) * w; p[2 * i + 1] = (next() / 2 ** 32) * h; }
      return p;
    },
  };
}

export const SYNTH_DESCRIPTORS = 256;

/**
 * `n` synthetic media (rows in media and visual_index with random ORB descriptors, numbered from
 * `first`) in an account: distractors at scale for the benchmarks, indexed "an hour ago".
 */
export async function insertSyntheticMedia(db: DataSource, accountId: number, fill: ReturnType<typeof filler>, first: number, n: number): Promise<void> {
  const ids: { id: string }[] = await db.query(
    `INSERT INTO media (account_id, path, parent, name, type, kind, width, height, format)
     SELECT $1, '/bench/synthetic/' || g || '.jpg', '/bench/synthetic', g || '.jpg', 'image', 'plain', 512, 384, 'jpeg'
     FROM generate_series($2::int, $3::int) g RETURNING id`,
    [accountId, first, first + n - 1],
  );
  const params: unknown[] = [];
  const tuples: string[] = [];
  for (const [k, r] of ids.entries()) {
    const points = fill.points(SYNTH_DESCRIPTORS, 512, 384);
    params.push(r.id, accountId, Buffer.from(points.buffer), Buffer.from(fill.bytes(SYNTH_DESCRIPTORS * 32)), Buffer.from(fill.bytes(8)), Buffer.from(fill.bytes(256)));
    const b = k * 6;
    tuples.push(`($${b + 1}, $${b + 2}, 512, 384, ${SYNTH_DESCRIPTORS}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`);
  }
  await db.query(`INSERT INTO visual_index (media_id, account_id, width, height, count, points, descriptors, dhash, thumb) VALUES ${tuples.join(',')}`, params);
  // Synthetic rows stand for media indexed long ago: outside the window other processes re-check.
  await db.query(`UPDATE visual_index SET indexed_at = now() - interval '1 hour' WHERE account_id = $1 AND media_id = ANY($2)`, [accountId, ids.map((r) => r.id)]);
}
