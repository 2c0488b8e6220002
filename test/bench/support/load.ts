import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
}

/** Keep-alive HTTP load on loopback: `concurrency` loops for `seconds`, latencies in ms. */
export async function load(url: string, headers: Record<string, string>, concurrency: number, seconds: number): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const target = new URL(url);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const once = () =>
    new Promise<void>((resolve) => {
      const start = performance.now();
      const req = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - start);
          statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
  const elapsed = (performance.now() - began) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  return { requests: latencies.length, errors, seconds: elapsed, rps: latencies.length / elapsed, p50: pct(0.5), p99: pct(0.99), statuses };
}
