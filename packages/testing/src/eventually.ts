/**
 * Polls `probe` (every 100 ms) until it returns something truthy, and returns that; throws naming
 * `what` after `timeoutMs`. For what no job drain covers: a webhook receiver, a crawl's state seen
 * through the API, a retried listener. Jobs and outbox events: `server.drainJobs()`.
 */
export async function eventually<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
