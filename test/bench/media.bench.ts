// `npm run bench -- media [--registrations N] [--children N]`: registrations per second (.lmk files
// over HTTP) and GET of a folder with many children (p50/p99), on a real PostgreSQL.
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { embed, encodeLmk, generateKey } from '@filigrane/watermark';
import { startTestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { benchPostgres } from './support/postgres.js';

async function photo(seed: number): Promise<Buffer> {
  const w = 512;
  const h = 384;
  const data = Buffer.alloc(w * h * 3);
  let s = seed;
  for (let i = 0; i < data.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    data[i] = ((i % (w * 3)) / 6 + ((s >> 16) % 50)) & 255;
  }
  return sharp(data, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { registrations: { type: 'string', default: '60' }, children: { type: 'string', default: '10000' } } });
  const registrations = Number(values.registrations);
  const children = Number(values.children);
  const pg = benchPostgres();
  process.env.DATABASE_URL = pg.url;
  const server = await startTestServer({ plugins: defaultPlugins(), workers: false, config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 } } });
  try {
    const { apiKey, id } = await server.createAccount('bench');
    const der = Buffer.from(await (await fetch(`${server.url}/api/v4/account/download/public_key.der`, { headers: { authorization: `Token ${apiKey}` } })).arrayBuffer());
    const files: Buffer[] = [];
    for (let i = 0; i < registrations; i++) files.push(encodeLmk((await embed(await photo(i + 1), generateKey())).registration, der));
    console.log(`${registrations} registration files of 512x384 photos, ${(files.reduce((s, f) => s + f.length, 0) / files.length / 1024).toFixed(0)} KiB each on average`);

    const concurrency = 4;
    let next = 0;
    const began = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < files.length) {
          const i = next++;
          const res = await server.call('PUT', `/api/v4/media/bench/reg/${i}.jpg`, { key: apiKey, body: files[i], headers: { 'content-type': 'application/lmk' } });
          if (res.status !== 201) throw new Error(`registration ${i}: ${res.status} ${res.text}`);
        }
      }),
    );
    const seconds = (performance.now() - began) / 1000;
    console.log(`PUT .lmk registrations: ${(registrations / seconds).toFixed(1)} per second (${concurrency} concurrent clients, ${seconds.toFixed(1)} s)`);

    // The big folder is filled in SQL: the listing is what is measured, not the registrations.
    await server.app.dataSource.query(`INSERT INTO media (account_id, path, parent, name, type) VALUES ($1, '/bench/big', '/bench', 'big', 'folder')`, [id]);
    await server.app.dataSource.query(
      `INSERT INTO media (account_id, path, parent, name, type, kind, width, height, format, metadata)
       SELECT $1, '/bench/big/img_' || lpad(g::text, 6, '0') || '.jpg', '/bench/big', 'img_' || lpad(g::text, 6, '0') || '.jpg',
              'image', 'plain', 1024, 768, 'jpeg', jsonb_build_object('user.n', g::text)
       FROM generate_series(1, $2) g`,
      [id, children],
    );
    await server.app.dataSource.query('ANALYZE media');
    for (const [label, query] of [['first page', ''], ['page 50', '?page=50'], ['last page', `?page=${Math.ceil(children / 100)}`]] as const) {
      const times: number[] = [];
      for (let i = 0; i < 60; i++) {
        const t0 = performance.now();
        const res = await server.call('GET', `/api/v4/media/bench/big/${query}`, { key: apiKey });
        times.push(performance.now() - t0);
        if (res.status !== 200 || res.json.children_count !== children) throw new Error(`listing: ${res.status}`);
      }
      times.sort((a, b) => a - b);
      console.log(`GET folder with ${children} children, ${label} (100 per page): p50 ${pct(times, 0.5).toFixed(1)} ms, p99 ${pct(times, 0.99).toFixed(1)} ms`);
    }
  } finally {
    await server.close();
    pg.stop();
  }
}
