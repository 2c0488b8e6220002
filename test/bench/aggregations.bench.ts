// `npm run bench -- aggregations [--matches N] [--seconds N] [--concurrency N]`: v3 aggregations over
// 1,000,000 matches of one account (and 100 other accounts) on a real PostgreSQL, served by
// `filigrane start`: filtered pages (p50/p99), streamed CSV exports of 100,000 rows (rows/s and
// the server's memory), against the same grouping computed live with GROUP BY over the matches.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { benchPostgres } from './support/postgres.js';
import { load } from './support/load.js';

const CLI = resolve(__dirname, '..', '..', '..', 'gateway', 'bin', 'filigrane.js');
const MEDIA = 10_000;
const SITES = 5_000;
const OTHER_ACCOUNTS = 100;
const OTHER_MATCHES = 1_000;

const cpuSeconds = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 1/100 s
};
const rssKb = (pid: number, field: 'VmRSS' | 'VmHWM') => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** Streams one CSV answer, counting rows and sampling the server's resident memory. */
async function exportCsv(url: string, headers: Record<string, string>, serverPid: number) {
  const before = rssKb(serverPid, 'VmRSS');
  const cpu0 = cpuSeconds(serverPid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKb(serverPid, 'VmRSS'))), 50);
  const start = performance.now();
  let lines = 0;
  let bytes = 0;
  let firstByteMs = NaN;
  await new Promise<void>((ok, fail) => {
    http.get(url, { headers }, (res) => {
      if (res.statusCode !== 200) fail(new Error(`${url}: ${res.statusCode}`));
      res.on('data', (chunk: Buffer) => {
        if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - start;
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      res.on('end', () => ok());
      res.on('error', fail);
    }).on('error', fail);
  });
  clearInterval(sampler);
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuSeconds(serverPid) - cpu0;
  return { rows: lines - 1, cpu, seconds, rowsPerSecond: (lines - 1) / seconds, mb: bytes / 1e6, firstByteMs, rssBeforeMb: before / 1024, rssPeakMb: peak / 1024 };
}

async function seed(client: pg.Client, accountId: number, matches: number): Promise<void> {
  const t0 = performance.now();
  await client.query(`INSERT INTO sites (domain, name, suffix, country) SELECT 'site' || i || '.com', 'Site' || i, 'com', NULL FROM generate_series(1, ${SITES}) i ON CONFLICT DO NOTHING`);
  await client.query(
    `INSERT INTO media (account_id, path, parent, name, type, kind)
     SELECT $1, '/bench/f' || (i % 100) || '/m' || i || '.jpg', '/bench/f' || (i % 100), 'm' || i || '.jpg', CASE WHEN i % 20 = 0 THEN 'video' ELSE 'image' END, 'watermarked'
     FROM generate_series(1, ${MEDIA}) i`,
    [accountId],
  );
  const { rows: ids } = await client.query<{ min: string }>('SELECT min(id) FROM media WHERE account_id = $1', [accountId]);
  const firstMedia = Number(ids[0]!.min);
  const { rows: site } = await client.query<{ min: number }>('SELECT min(id) FROM sites');
  const firstSite = site[0]!.min;
  // Each media is found on 20 sites, on 5 pages of each (a photo is reused), over a year; 1 in 50 is a credit line.
  const chunk = 50_000;
  for (let from = 0; from < matches; from += chunk) {
    await client.query(
      `INSERT INTO matches (account_id, media_id, kind, source, watermarked, sessions, site_id, host, page_url, page, query_url, date_created, date_updated)
       SELECT $1, $2::bigint + (i % ${MEDIA}), CASE WHEN i % 50 = 0 THEN 'credit' WHEN i % 10 = 0 THEN 'press' ELSE 'web' END, 'bench', i % 3 = 0,
              ARRAY[1 + i % 40], $3::int + s, 'www.site' || (s + 1) || '.com', 'https://www.site' || (s + 1) || '.com/p' || ((i / 7) % 5), '{}',
              'https://cdn.site' || (s + 1) || '.com/i' || i || '.jpg', timestamptz '2025-01-01' + (i * interval '31 seconds'), timestamptz '2025-01-01' + (i * interval '31 seconds')
       FROM generate_series($4::int, $5::int) i, LATERAL (SELECT ((i % ${MEDIA}) * 7 + (i / ${MEDIA}) % 20) % ${SITES} AS s) x`,
      [accountId, firstMedia, firstSite, from, Math.min(matches, from + chunk) - 1],
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  console.log(`  account ${accountId}: ${matches.toLocaleString('en')} matches recorded in ${seconds.toFixed(1)} s (${(matches / seconds).toFixed(0)} matches/s, aggregates kept by the trigger in the same transactions)`);
}

async function startServer(env: NodeJS.ProcessEnv): Promise<{ base: string; proc: ChildProcess }> {
  const proc = spawn(process.execPath, [CLI, 'start'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const base = await new Promise<string>((ok, fail) => {
    proc.stdout!.on('data', (d: Buffer) => {
      const m = /listening on (\S+)/.exec(d.toString());
      if (m) ok(m[1]!);
    });
    proc.on('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
  return { base, proc };
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { matches: { type: 'string', default: '1000000' }, seconds: { type: 'string', default: '8' }, concurrency: { type: 'string', default: '4' } },
  });
  const total = Number(values.matches);
  const seconds = Number(values.seconds);
  const concurrency = Number(values.concurrency);
  const database = benchPostgres();
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'filigrane-bench-')),
    LOG_LEVEL: 'silent',
    PORT: String(18000 + Math.floor(Math.random() * 2000)),
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_PER_DAY: '1000000000',
  };
  const account = (username: string) => {
    const created = spawnSync(process.execPath, [CLI, 'account', 'create', '--username', username, '--email', `${username}@example.com`, '--json'], { env });
    if (created.status !== 0) throw new Error(`account create failed: ${created.stderr}`);
    return JSON.parse(created.stdout.toString()) as { api_key: string; id?: number };
  };
  const key = account('bench').api_key;
  const otherKey = account('neighbour').api_key;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  let server: { base: string; proc: ChildProcess } | null = null;
  try {
    const ids = await client.query<{ id: number; username: string }>('SELECT id, username FROM accounts');
    const benchId = ids.rows.find((r) => r.username === 'bench')!.id;
    const neighbourId = ids.rows.find((r) => r.username === 'neighbour')!.id;
    console.log(`PostgreSQL ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'throwaway cluster'}; seeding ${total.toLocaleString('en')} matches for one account, ${OTHER_ACCOUNTS} other accounts with ${OTHER_MATCHES.toLocaleString('en')} each`);
    await seed(client, benchId, total);
    await client.query(`INSERT INTO accounts (username, email, home) SELECT 'other' || i, 'o' || i || '@example.com', '/other' || i FROM generate_series(2, ${OTHER_ACCOUNTS}) i`);
    const others = await client.query<{ id: number }>(`SELECT id FROM accounts WHERE username LIKE 'other%' OR id = $1 ORDER BY id`, [neighbourId]);
    const t0 = performance.now();
    for (const o of others.rows) {
      // Fewer media and sites per other account; same generator.
      await client.query(
        `INSERT INTO media (account_id, path, parent, name, type, kind) SELECT $1, $2 || '/m' || i || '.jpg', $2, 'm' || i || '.jpg', 'image', 'watermarked' FROM generate_series(1, 100) i`,
        [o.id, `/acct${o.id}`],
      );
      await client.query(
        `INSERT INTO matches (account_id, media_id, kind, source, watermarked, site_id, host, page_url, query_url, date_created, date_updated)
         SELECT $1, (SELECT min(id) FROM media WHERE account_id = $1) + i % 100, 'web', 'bench', i % 2 = 0, (SELECT min(id) FROM sites) + i % ${SITES},
                'www.x.com', 'https://www.x.com/p' || (i % 300), 'https://www.x.com/i' || i || '.jpg', timestamptz '2025-06-01' + i * interval '1 minute', now()
         FROM generate_series(1, ${OTHER_MATCHES}) i`,
        [o.id],
      );
    }
    console.log(`  ${others.rowCount} other accounts: ${(others.rowCount! * OTHER_MATCHES).toLocaleString('en')} matches in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // One match per statement, as MatchRecorder writes them: with the aggregate triggers, then without.
    const single = async (n: number, offset: number) => {
      const s = performance.now();
      for (let i = offset; i < offset + n; i++) {
        await client.query(
          `INSERT INTO matches (account_id, media_id, kind, source, watermarked, sessions, site_id, host, page_url, query_url, date_created, date_updated)
           VALUES ($1, (SELECT min(id) FROM media WHERE account_id = $1) + $2 % 100, 'web', 'bench', $2 % 2 = 0, ARRAY[$2 % 7], (SELECT min(id) FROM sites) + $2 % 50,
                   'www.y.com', 'https://www.y.com/p' || $2 % 30, 'https://www.y.com/single' || $2 || '.jpg', now(), now())`,
          [neighbourId, i],
        );
      }
      return n / ((performance.now() - s) / 1000);
    };
    const withTriggers = await single(300, 0);
    const lastId = (await client.query<{ max: string }>('SELECT max(id) FROM matches')).rows[0]!.max;
    await client.query('ALTER TABLE matches DISABLE TRIGGER USER');
    const without = await single(300, 300);
    // Rows the aggregates never counted leave the same way.
    await client.query('DELETE FROM matches WHERE id > $1', [lastId]);
    await client.query('ALTER TABLE matches ENABLE TRIGGER USER');
    console.log(`  single-row inserts (MatchRecorder's shape): ${withTriggers.toFixed(0)} matches/s with aggregate maintenance, ${without.toFixed(0)}/s without (${(without / withTriggers).toFixed(2)}x)`);
    await client.query('VACUUM ANALYZE');
    const sizes = await client.query<{ name: string; n: number }>(`SELECT name, count(*)::int AS n FROM aggregations WHERE account_id = $1 GROUP BY name ORDER BY name`, [benchId]);
    console.log(`  aggregate rows of the account: ${sizes.rows.map((r) => `${r.name} ${r.n.toLocaleString('en')}`).join(', ')}`);

    server = await startServer(env);
    const headers = { authorization: `Token ${key}` };
    const pid = server.proc.pid!;
    console.log(`server ${server.base}; ${concurrency} concurrent clients, ${seconds} s per query`);
    const pages: [string, string][] = [
      ['group-path, path prefix + counts', '/api/v3/aggregations/group-path/?path__startswith=/bench/f7/&match_count__gte=50&watermarked_count__gt=0'],
      ['group-site-path, one site', '/api/v3/aggregations/group-site-path/?site.domain=site123.com&match_count__gte=2'],
      ['group-site-path, tags + dates', '/api/v3/aggregations/group-site-path/?!tags=done&last_seen__gte=2025-06-01&type=4&page=3'],
      ['group-site-path-pageurl, page prefix', '/api/v3/aggregations/group-site-path-pageurl/?page_url__startswith=https://www.site42.com/&watermarked_count>=1'],
      ['group-site-path-pageurl, media + date', '/api/v3/aggregations/group-site-path-pageurl/?media.id__in=100,200,300&first_seen__lt=2025-09-01'],
    ];
    const first = await (await fetch(`${server.base}${pages[1]![1]}`, { headers })).json() as { count: number; results: { _id: string }[] };
    // Give the account something to filter on by tags: 1,000 groups tagged through the API's SQL path.
    await client.query(`UPDATE aggregations SET tags = '{done}' WHERE id IN (SELECT id FROM aggregations WHERE account_id = $1 AND name = 'group-site-path' LIMIT 1000)`, [benchId]);
    const results: Record<string, { p50: number; p99: number; rps: number }> = {};
    for (const [label, path] of pages) {
      await load(`${server.base}${path}`, headers, concurrency, 1);
      const r = await load(`${server.base}${path}`, headers, concurrency, seconds);
      const body = (await (await fetch(`${server.base}${path}`, { headers })).json()) as { count: number };
      results[label] = r;
      console.log(`  ${label.padEnd(40)} count ${String(body.count).padStart(7)}  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms  ${r.rps.toFixed(0)} req/s  ${JSON.stringify(r.statuses)}`);
    }
    // The same page computed live: GROUP BY over the matches (what an aggregation without maintained rows costs).
    const live = async () => {
      const s = performance.now();
      await client.query(
        `SELECT m.media_id, m.site_id, count(*), sum(m.watermarked::int), min(m.date_created), max(m.date_updated)
         FROM matches m JOIN sites s ON s.id = m.site_id WHERE m.account_id = $1 AND s.domain = 'site123.com'
         GROUP BY m.media_id, m.site_id HAVING count(*) >= 2 ORDER BY max(m.date_updated) DESC LIMIT 100`,
        [benchId],
      );
      return performance.now() - s;
    };
    const liveMs: number[] = [];
    for (let i = 0; i < 7; i++) liveMs.push(await live());
    liveMs.sort((a, b) => a - b);
    const liveAll = async () => {
      const s = performance.now();
      await client.query(
        `SELECT count(*) FROM (SELECT m.media_id, m.site_id FROM matches m WHERE m.account_id = $1 GROUP BY m.media_id, m.site_id HAVING max(m.date_updated) >= '2025-06-01') g`,
        [benchId],
      );
      return performance.now() - s;
    };
    const liveAllMs = [await liveAll(), await liveAll(), await liveAll()].sort((a, b) => a - b)[1]!;
    const maintained = results['group-site-path, one site']!.p50;
    const maintainedAll = results['group-site-path, tags + dates']!.p50;
    console.log(`  live GROUP BY, one site (SQL only, no HTTP): median ${liveMs[3]!.toFixed(1)} ms -> maintained rows ${(liveMs[3]! / maintained).toFixed(1)}x faster end to end`);
    console.log(`  live GROUP BY, whole account with a date (SQL only): median ${liveAllMs.toFixed(0)} ms -> maintained rows ${(liveAllMs / maintainedAll).toFixed(1)}x faster end to end`);

    // Isolation sanity: the neighbour sees only its own groups.
    const theirs = (await (await fetch(`${server.base}/api/v3/aggregations/group-path/?page_size=1`, { headers: { authorization: `Token ${otherKey}` } })).json()) as { count: number };
    console.log(`  neighbour account sees ${theirs.count} group-path objects (its own 100 media); first page above had ${first.count} groups`);

    // CSV exports of ~10,000 then ~100,000 rows (and ~300,000 matches): memory that does not grow with the export stays put.
    const target = Math.min(100_000, Math.floor(total / 4));
    const cut = await client.query<{ d: Date }>(`SELECT date_created AS d FROM matches WHERE account_id = $1 AND kind <> 'credit' ORDER BY date_created DESC OFFSET $2 LIMIT 1`, [benchId, target - 1]);
    const since = cut.rows[0]!.d.toISOString();
    const cutSmall = await client.query<{ d: Date }>(`SELECT date_created AS d FROM matches WHERE account_id = $1 AND kind <> 'credit' ORDER BY date_created DESC OFFSET $2 LIMIT 1`, [benchId, Math.floor(target / 10) - 1]);
    const sinceSmall = cutSmall.rows[0]!.d.toISOString();
    const cutLarge = await client.query<{ d: Date }>(`SELECT date_created AS d FROM matches WHERE account_id = $1 AND kind <> 'credit' ORDER BY date_created DESC OFFSET $2 LIMIT 1`, [benchId, target * 3 - 1]);
    const sinceLarge = cutLarge.rows[0]?.d.toISOString() ?? since;
    const siteCut = await client.query<{ s: number }>(
      `SELECT site_id AS s FROM aggregations WHERE account_id = $1 AND name = 'group-site-path' ORDER BY site_id OFFSET $2 LIMIT 1`,
      [benchId, target - 1],
    );
    const exports: [string, string][] = [
      ['aggregations group-site-path CSV', `/api/v3/aggregations/group-site-path/?format=csv&site.id__lte=${siteCut.rows[0]!.s}`],
      ['aggregations group-site-path CSV (small)', `/api/v3/aggregations/group-site-path/?format=csv&site.id__lte=${siteCut.rows[0]!.s / 10}`],
      ['v4 matches CSV (small)', `/api/v4/matches/?format=csv&date_created__gte=${encodeURIComponent(sinceSmall)}`],
      ['v4 matches CSV', `/api/v4/matches/?format=csv&date_created__gte=${encodeURIComponent(since)}`],
      ['v4 matches CSV (3x)', `/api/v4/matches/?format=csv&date_created__gte=${encodeURIComponent(sinceLarge)}`],
    ];
    for (const [label, path] of exports) {
      const e = await exportCsv(`${server.base}${path}`, headers, pid);
      console.log(
        `  ${label.padEnd(42)} ${e.rows.toLocaleString('en').padStart(8)} rows in ${e.seconds.toFixed(2)} s = ${e.rowsPerSecond.toFixed(0)} rows/s, ${(e.rows / e.cpu).toFixed(0)} rows per server CPU-second (${e.mb.toFixed(1)} MB, first byte ${e.firstByteMs.toFixed(0)} ms); ` +
          `server RSS ${e.rssBeforeMb.toFixed(0)} -> peak ${e.rssPeakMb.toFixed(0)} MB`,
      );
    }
    console.log(`  server peak RSS over the whole run (VmHWM): ${(rssKb(pid, 'VmHWM') / 1024).toFixed(0)} MB`);
    console.log('  webhook fan-out: measured by the integrations plugin (match.created events are published by MatchRecorder; bulk SQL inserts here publish none).');
    console.log(
      `targets: filtered page p50 < 100 ms (worst p50 here ${Math.max(...Object.values(results).map((r) => r.p50)).toFixed(1)} ms); CSV >= 20,000 rows/s with flat memory`,
    );
  } finally {
    await client.end();
    if (server) {
      server.proc.kill('SIGTERM');
      await new Promise((r) => server!.proc.once('exit', r));
    }
    database.stop();
  }
}
