// `npm run bench -- webhooks [--endpoints N] [--events N] [--concurrency N]`: webhook fan-out,
// deliveries per second from domain events to a loopback receiver, through the real path (event bus,
// delivery rows in PostgreSQL, pg-boss jobs, signing, the SSRF-safe fetcher), against a bare loop
// that signs and POSTs the same number of messages with the same concurrency (the peer).
// `webhookFanOut()` is exported so that another benchmark (aggregations) can print the same figures.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { TOKENS, type EventPublisher } from '@filigrane/core';
import { startTestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { benchPostgres } from './support/postgres.js';

export interface FanOutResult {
  deliveries: number;
  seconds: number;
  perSecond: number;
  lagP50Ms: number;
  lagP99Ms: number;
  peerPerSecond: number;
}

interface Receiver {
  url: string;
  count(): number;
  lags: number[];
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  let n = 0;
  const lags: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      n++;
      const body = Buffer.concat(chunks).toString();
      const ts = /"timestamp":"([^"]+)"/.exec(body)?.[1];
      if (ts) lags.push(Date.now() - Date.parse(ts));
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => n,
    lags,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** The peer: sign with the reference package and POST with fetch, `concurrency` at a time, no queue, no log. */
async function bareLoop(url: string, total: number, concurrency: number): Promise<number> {
  const hook = new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        const body = JSON.stringify({ type: 'match.created', timestamp: new Date().toISOString(), data: { id: String(i) } });
        const id = `msg_${i}`;
        const at = new Date();
        const res = await fetch(url, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': hook.sign(id, at, body) },
        });
        await res.arrayBuffer();
      }
    }),
  );
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** Fan-out of `events` match.created events to `endpoints` endpoints of one account, on the PostgreSQL at DATABASE_URL. */
export async function webhookFanOut(options: { endpoints: number; events: number; concurrency: number }): Promise<FanOutResult> {
  const sink = await receiver();
  const server = await startTestServer({
    plugins: defaultPlugins(),
    workers: true,
    env: { FETCH_ALLOW_HOSTS: '127.0.0.1', WEBHOOKS_CONCURRENCY: String(options.concurrency), LOG_LEVEL: 'silent' },
  });
  try {
    const account = await server.createAccount('fanout');
    for (let i = 0; i < options.endpoints; i++) {
      const res = await server.call('POST', '/api/v4/account/webhooks/', { key: account.apiKey, json: { url: `${sink.url}?e=${i}`, events: ['match.created'] } });
      if (res.status !== 201) throw new Error(res.text);
    }
    const total = options.endpoints * options.events;
    const bus = server.app.container.get<EventPublisher>(TOKENS.Events);
    const started = process.hrtime.bigint();
    for (let i = 0; i < options.events; i++) await bus.publish({ type: 'match.created', accountId: account.id, data: { id: String(i), kind: 'web' } });
    const deadline = Date.now() + 600_000;
    while (sink.count() < total) {
      if (Date.now() > deadline) throw new Error(`only ${sink.count()} of ${total} deliveries arrived`);
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const lags = [...sink.lags];
    const peer = await receiver();
    const peerPerSecond = await bareLoop(peer.url, total, options.concurrency);
    await peer.close();
    return { deliveries: total, seconds, perSecond: total / seconds, lagP50Ms: percentile(lags, 50), lagP99Ms: percentile(lags, 99), peerPerSecond };
  } finally {
    await server.close();
    await sink.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { endpoints: { type: 'string', default: '10' }, events: { type: 'string', default: '300' }, concurrency: { type: 'string', default: '16' } } });
  const pg = benchPostgres();
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = pg.url; // startTestServer makes a fresh database on it
  try {
    const r = await webhookFanOut({ endpoints: Number(values.endpoints), events: Number(values.events), concurrency: Number(values.concurrency) });
    console.log(`webhook fan-out: ${values.events} events x ${values.endpoints} endpoints = ${r.deliveries} signed deliveries to a loopback receiver, worker concurrency ${values.concurrency}`);
    console.log(`  Filigrane (event bus -> rows -> pg-boss -> sign -> SSRF-safe POST): ${r.perSecond.toFixed(0)} deliveries/s (${r.seconds.toFixed(2)} s), event-to-receipt lag p50 ${r.lagP50Ms.toFixed(0)} ms, p99 ${r.lagP99Ms.toFixed(0)} ms`);
    console.log(`  peer (bare loop: standardwebhooks sign + fetch POST, no queue, no log): ${r.peerPerSecond.toFixed(0)} deliveries/s`);
    console.log(`  ratio Filigrane / bare loop: ${(r.perSecond / r.peerPerSecond).toFixed(2)}`);
  } finally {
    if (previous === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = previous;
    pg.stop();
  }
}
