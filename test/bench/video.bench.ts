/**
 * `npm run bench -- video [--videos DIR] [--clips N]`
 * Video tracking on real footage (test/bench/fetch-videos.sh: opencv-doc's vtest.avi, Megamind.avi,
 * Megamind_bugy.avi, tree.avi, python3-mecavideo's clips), on a real PostgreSQL, through the REST API:
 * 1. registration: every video but tree.avi (kept unregistered as unrelated footage) is PUT and
 *    fingerprinted by the worker; throughput in seconds of video per wall second, also for
 *    720p renditions of vtest.avi, at its own 10 and at 25 frames a second (the target's resolution, target >= 20x; in a second account);
 * 2. robustness: clips of 6 s cut from registered videos at N start times each, re-encoded
 *    (mpeg4 at a quarter of the bitrate), resized to half, cropped 20%, with a logo overlay, or
 *    mirrored, are searched: recall (the right video first), time error of the matched range;
 *    Megamind_bugy.avi clips (same content, broken timing) against the registered Megamind.avi;
 * 3. unrelated footage (tree.avi, synthetic lavfi sources): false matches;
 * peak RSS of this process (API + worker in one process; ffmpeg children not included).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { defaultPlugins } from '@filigrane/gateway';
import { FFMPEG, probeVideo } from '@filigrane/video';
import { benchPostgres } from './support/postgres.js';

const root = resolve(__dirname, '..', '..', '..');
const ff = (...args: string[]) => execFileSync(FFMPEG, ['-v', 'error', '-y', ...args]);

const TRANSFORMS: Record<string, string[]> = {
  reencode: ['-c:v', 'mpeg4', '-b:v', 'BITRATE'],
  half: ['-vf', 'scale=trunc(iw/4)*2:trunc(ih/4)*2', '-c:v', 'libx264'],
  crop20: ['-vf', 'crop=trunc(iw*0.4)*2:trunc(ih*0.4)*2', '-c:v', 'libx264'],
  logo: ['-vf', 'drawbox=x=iw*0.05:y=ih*0.05:w=iw/5:h=ih/6:color=red@0.85:t=fill', '-c:v', 'libx264'],
  mirror: ['-vf', 'hflip', '-c:v', 'libx264'],
};

async function poll(server: TestServer, url: string, key: string, done: (j: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (;;) {
    const res = await server.call('GET', new URL(url, server.url).pathname, { key });
    if (done(res.json)) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const contentType = (f: string) => (f.endsWith('.mp4') ? 'video/mp4' : f.endsWith('.mov') ? 'video/quicktime' : 'video/x-msvideo');

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { videos: { type: 'string' }, clips: { type: 'string' } } });
  const dir = values.videos ?? join(root, '.cache', 'videos');
  if (!existsSync(join(dir, 'vtest.avi'))) execFileSync('bash', [join(root, 'test', 'bench', 'fetch-videos.sh'), dir], { stdio: 'inherit' });
  const clipsPer = Number(values.clips ?? 3);
  const work = mkdtempSync(join(tmpdir(), 'filigrane-video-bench-'));
  const files = readdirSync(dir).filter((f) => /\.(avi|mp4|mov)$/i.test(f));
  const unrelated: string[] = files.filter((f) => f === 'tree.avi');
  const bugy: string[] = files.filter((f) => f === 'Megamind_bugy.avi');
  const registered = files.filter((f) => !unrelated.includes(f) && !bugy.includes(f));
  ff('-i', join(dir, 'vtest.avi'), '-vf', 'scale=1280:720', '-c:v', 'libx264', '-preset', 'veryfast', join(work, 'vtest-720p.mp4'));
  // vtest.avi is 10 frames a second; most 720p video has 25 or 30, and the decoder reads them all.
  ff('-i', join(dir, 'vtest.avi'), '-vf', 'scale=1280:720,fps=25', '-c:v', 'libx264', '-preset', 'veryfast', join(work, 'vtest-720p25.mp4'));
  const is720 = (name: string) => name.startsWith('vtest-720p');

  const pg = benchPostgres();
  process.env.DATABASE_URL = pg.url;
  const server = await startTestServer({ plugins: defaultPlugins(), workers: true, config: { rateLimit: { perSecond: 1_000_000, perDay: 1_000_000_000 } } });
  try {
    const { apiKey: key } = await server.createAccount('bench');
    // The 720p rendition only measures throughput: in its own account, so that clips of vtest.avi
    // do not (rightly) find it as a second copy.
    const { apiKey: key720 } = await server.createAccount('bench720');
    const durations = new Map<string, number>();
    const through720 = new Map<string, number>();
    console.log('registration (PUT, then the media.video job until ready)');
    console.log('video'.padEnd(24), 'size'.padStart(10), 'duration s'.padStart(11), 'wall s'.padStart(8), 'x real time'.padStart(12));
    for (const f of [...registered.map((x) => join(dir, x)), join(work, 'vtest-720p.mp4'), join(work, 'vtest-720p25.mp4')]) {
      const name = f.split('/').pop()!;
      const k = is720(name) ? key720 : key;
      const home = is720(name) ? 'bench720' : 'bench';
      const info = await probeVideo(f);
      const t0 = Date.now();
      const res = await server.call('PUT', `/api/v4/media/${home}/videos/${name}`, { key: k, body: readFileSync(f), headers: { 'content-type': contentType(f) } });
      if (res.status !== 201) throw new Error(`${name}: ${res.status} ${res.text}`);
      const done = await poll(server, res.json.url, k, (j) => (j.video as { status: string }).status !== 'pending');
      const wall = (Date.now() - t0) / 1000;
      if ((done.video as { status: string }).status !== 'ready') console.log(`${name}: ${JSON.stringify(done.video)}`);
      durations.set(name, info.duration);
      if (is720(name)) through720.set(name, info.duration / wall);
      console.log(name.padEnd(24), `${info.width}x${info.height}`.padStart(10), info.duration.toFixed(1).padStart(11), wall.toFixed(1).padStart(8), (info.duration / wall).toFixed(1).padStart(12));
    }

    console.log(`720p throughput: ${[...through720].map(([n, x]) => `${x.toFixed(1)}x (${n})`).join(', ')} real time (target >= 20x)`);

    const search = async (file: string) => {
      const body = { file: `data:video/mp4;base64,${readFileSync(file).toString('base64')}` };
      const t0 = Date.now();
      const res = await server.call('POST', '/api/v4/searches/', { key, json: body });
      if (res.status !== 201) throw new Error(res.text);
      const done = await poll(server, res.json.url, key, (j) => j.status === 'complete' || j.status === 'failed');
      return { matches: (done.matches ?? []) as Record<string, unknown>[], ms: Date.now() - t0, status: done.status };
    };

    console.log('\nrobustness: 6 s clips (right video first, matched range within 1 s)');
    const rows: Record<string, { n: number; found: number; inRange: number; err: number[] }> = {};
    const sources: [string, string][] = [...registered.filter((f) => (durations.get(f) ?? 0) >= 10).map((f): [string, string] => [f, f]), ...bugy.map((f): [string, string] => [f, 'Megamind.avi'])];
    let falseMatches = 0;
    for (const [source, expected] of sources) {
      const info = await probeVideo(join(dir, source));
      const bitrate = Math.max(50_000, Math.round((statSync(join(dir, source)).size * 8) / info.duration / 4));
      for (let c = 0; c < clipsPer; c++) {
        const start = Math.round(((info.duration - 7) * (c + 0.5)) / clipsPer);
        for (const [name, t] of Object.entries(TRANSFORMS)) {
          const out = join(work, `${source}-${c}-${name}.mp4`);
          ff('-ss', String(start), '-t', '6', '-i', join(dir, source), ...t.map((a) => a.replace('BITRATE', String(bitrate))), '-an', out);
          const { matches } = await search(out);
          const key_ = `${source === expected ? '' : `${source} vs ${expected} `}${name}`;
          const row = (rows[key_] ??= { n: 0, found: 0, inRange: 0, err: [] });
          row.n++;
          const first = matches[0];
          const path = (first?.video as { media_path?: string } | undefined)?.media_path;
          if (path === `/bench/videos/${expected}`) {
            row.found++;
            const err = Math.max(Math.abs((first!.matched_video_start_time as number) - start), Math.abs((first!.matched_video_end_time as number) - (start + 6)));
            row.err.push(err);
            if (err <= 1) row.inRange++;
          }
          const others = matches.filter((m) => (m.video as { media_path?: string }).media_path !== `/bench/videos/${expected}`);
          for (const m of others) console.log(`  ${out.split('/').pop()}: also ${(m.video as { media_path: string }).media_path}`);
          falseMatches += others.length;
        }
      }
    }
    console.log('transform'.padEnd(34), 'clips'.padStart(6), 'recall'.padStart(8), 'range<=1s'.padStart(10), 'median err s'.padStart(13));
    let n = 0;
    let ok = 0;
    for (const [name, r] of Object.entries(rows)) {
      // Megamind_bugy.avi's broken timing puts the same content at other times (9.0 s against
      // 11.3 s): its clips count for recall, not for the 1 s range target (not cut from the video).
      if (!name.includes(' vs ')) {
        n += r.n;
        ok += r.inRange;
      }
      const med = r.err.length ? [...r.err].sort((a, b) => a - b)[Math.floor(r.err.length / 2)]! : NaN;
      console.log(name.padEnd(34), String(r.n).padStart(6), `${((100 * r.found) / r.n).toFixed(0)}%`.padStart(8), `${((100 * r.inRange) / r.n).toFixed(0)}%`.padStart(10), med.toFixed(2).padStart(13));
    }
    const bugyRows = Object.entries(rows).filter(([name]) => name.includes(' vs '));
    const bugyFound = bugyRows.reduce((s, [, r]) => s + r.found, 0);
    const bugyN = bugyRows.reduce((s, [, r]) => s + r.n, 0);
    if (bugyN) console.log(`Megamind_bugy.avi clips (same content, broken timing): ${bugyFound}/${bugyN} found`);
    console.log(`clips cut from registered videos: ${ok}/${n} found with the range within 1 s (${((100 * ok) / Math.max(1, n)).toFixed(1)}%, target >= 95%); other videos reported: ${falseMatches}`);

    console.log('\nunrelated footage (no match expected)');
    const lavfi = [
      ['testsrc2', 'testsrc2=size=640x360:rate=25'],
      ['mandelbrot', 'mandelbrot=size=640x360:rate=25'],
      ['life', 'life=size=640x360:rate=25:mold=10:ratio=0.2'],
    ];
    const unrelatedClips: string[] = [];
    for (const f of unrelated) {
      const out = join(work, `unrelated-${f}.mp4`);
      ff('-t', '10', '-i', join(dir, f), '-c:v', 'libx264', '-an', out);
      unrelatedClips.push(out);
    }
    for (const [name, src] of lavfi) {
      const out = join(work, `unrelated-${name}.mp4`);
      ff('-f', 'lavfi', '-i', src!, '-t', '8', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', out);
      unrelatedClips.push(out);
    }
    let unrelatedFalse = 0;
    for (const c of unrelatedClips) {
      const { matches } = await search(c);
      unrelatedFalse += matches.length;
      for (const m of matches) console.log(`  ${c.split('/').pop()}: ${(m.video as { media_path: string }).media_path}`);
    }
    console.log(`${unrelatedClips.length} unrelated clips: ${unrelatedFalse} false matches (target 0)`);
    console.log(`peak RSS of the API + worker process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    await server.close();
    pg.stop();
  }
}
