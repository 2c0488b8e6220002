/**
 * `work` on each item of `source`, up to `depth` at once, results in the source's order: frames are
 * described on several cores while the decoder goes on, and memory holds at most `depth` of them.
 */
export async function* pipelined<T, R>(source: AsyncIterable<T>, work: (item: T) => Promise<R>, depth: number): AsyncGenerator<R> {
  const queue: Promise<R>[] = [];
  for await (const item of source) {
    const p = work(item);
    p.catch(() => undefined); // awaited in turn below; not an unhandled rejection meanwhile
    queue.push(p);
    if (queue.length >= depth) yield await queue.shift()!;
  }
  while (queue.length) yield await queue.shift()!;
}
