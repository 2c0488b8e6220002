/**
 * The batches of a keyset walk (exports): `batch(last row of the previous batch, or null)` reads the
 * next one; it is read while the current one is consumed, so the database and the caller's work
 * overlap. A batch shorter than `batchSize` is the last.
 */
export async function* keysetBatches<T>(batch: (after: T | null) => Promise<T[]>, batchSize: number): AsyncGenerator<T[]> {
  let rows = await batch(null);
  for (;;) {
    const next = rows.length < batchSize ? null : batch(rows[rows.length - 1]!);
    // A consumer that stops early (client gone) must not leave the prefetch's rejection unhandled.
    next?.catch(() => undefined);
    if (rows.length) yield rows;
    if (!next) return;
    rows = await next;
  }
}
