import { timingSafeEqual, createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DataSource } from 'typeorm';

/**
 * What operators scrape (Prometheus): requests by route and status, jobs by queue (count,
 * duration, outcome), queue depth and the visual index's size. One registry per app: a test
 * process may hold several apps.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({ name: 'filigrane_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status', labelNames: ['route', 'method', 'status'], registers: [this.registry] });
  readonly requestSeconds = new Histogram({
    name: 'filigrane_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by route pattern and method',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });
  readonly jobs = new Counter({ name: 'filigrane_jobs_total', help: 'Jobs run by this process, by queue and outcome (completed, failed: one attempt; failed_for_good: its retries used up)', labelNames: ['queue', 'outcome'], registers: [this.registry] });
  readonly jobSeconds = new Histogram({
    name: 'filigrane_job_duration_seconds',
    help: 'Duration of the jobs run by this process, by queue',
    labelNames: ['queue', 'outcome'],
    buckets: [0.01, 0.05, 0.25, 1, 5, 15, 60, 300, 1800],
    registers: [this.registry],
  });

  constructor(dataSource: () => DataSource | null) {
    collectDefaultMetrics({ register: this.registry, prefix: 'filigrane_' });
    const db = dataSource;
    new Gauge({
      name: 'filigrane_queue_depth',
      help: 'Jobs waiting (created, retry) or running (active) in the shared queue, by queue',
      labelNames: ['queue', 'state'],
      registers: [this.registry],
      async collect() {
        this.reset();
        const source = db();
        if (!source) return;
        const rows: { name: string; state: string; n: number }[] = await source.query(
          `SELECT name, state::text AS state, count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry', 'active') GROUP BY 1, 2`,
        ).catch(() => []);
        for (const r of rows) this.set({ queue: r.name, state: r.state }, r.n);
      },
    });
    new Gauge({
      name: 'filigrane_visual_index_entries',
      help: 'Rows of the visual index (one per image, one per sampled video frame), all accounts; estimated from statistics past 100,000',
      registers: [this.registry],
      async collect() {
        const source = db();
        if (!source) return;
        // count(*) on millions of rows at every scrape would cost seconds: the planner's estimate then.
        const est: { n: number }[] = await source.query(`SELECT reltuples::float8 AS n FROM pg_class WHERE relname = 'visual_index' AND relkind IN ('r', 'p')`).catch(() => []);
        const estimate = est[0]?.n ?? -1;
        if (estimate > 100_000) return this.set(estimate);
        const exact: { n: number }[] = await source.query('SELECT count(*)::float8 AS n FROM visual_index').catch(() => []);
        if (exact[0]) this.set(exact[0].n);
      },
    });
  }

  /** Counts every answered request by its route pattern (never the raw URL: ids would explode the series). */
  instrument(app: FastifyInstance): void {
    app.addHook('onResponse', async (req, reply) => {
      const route = req.routeOptions.url ?? 'unmatched';
      this.requests.inc({ route, method: req.method, status: String(reply.statusCode) });
      this.requestSeconds.observe({ route, method: req.method }, reply.elapsedTime / 1000);
    });
  }

  /** GET /metrics, for `Authorization: Bearer <METRICS_TOKEN>` only; not mounted without a token (404). */
  mount(app: FastifyInstance, token: string | undefined): void {
    if (!token) return;
    app.get('/metrics', async (req, reply) => {
      const answer = await this.answer(token, req.headers.authorization);
      return reply.code(answer.status).headers(answer.headers).send(answer.body);
    });
  }

  /** A worker process (no API): GET /metrics alone on its own port; the stop function. */
  async serve(token: string, host: string, port: number): Promise<{ url: string; close(): Promise<void> }> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ status_code: 404, code: 'not_found', details: 'Only GET /metrics here.' }));
        return;
      }
      void this.answer(token, req.headers.authorization).then(
        (a) => res.writeHead(a.status, a.headers).end(a.body),
        () => res.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, () => resolve()));
    const address = server.address() as AddressInfo;
    return {
      url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`,
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  private async answer(token: string, authorization: string | undefined): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    const given = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
    // Hashes compared, so neither the length nor the bytes of the token leak through timing.
    if (!timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(token).digest())) {
      return {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="metrics"', 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ status_code: 401, code: 'not_authenticated', details: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.' }),
      };
    }
    return { status: 200, headers: { 'content-type': this.registry.contentType }, body: await this.registry.metrics() };
  }
}
