import test from 'ava';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { camelCaseKeys, TOKENS, type MatchPipeline } from '@filigrane/core';
import { startTestServer, type TestServer } from '@filigrane/testing';
import { FFMPEG, FFPROBE } from '@filigrane/video';
import { getSharp, syntheticPhoto } from '@filigrane/vision';

// Real clips, made here with the same ffmpeg the service ships: a registered video (shots of 2 s,
// each a slow pan over a different photograph), a re-encoded, half-size cut of it, a frame grab,
// an unrelated video, and broken files.
const dir = mkdtempSync(join(tmpdir(), 'filigrane-video-test-'));
const ff = (...args: string[]) => execFileSync(FFMPEG, ['-v', 'error', '-y', ...args]);
const path = (name: string) => join(dir, name);

let server: TestServer;
let key: string;
let vidId: number;
let other: string;

const dataUri = (file: string, type: string) => `data:${type};base64,${readFileSync(path(file)).toString('base64')}`;

async function poll(url: string, k = key, done = (j: Record<string, unknown>) => j.status === 'complete' || j.status === 'failed') {
  for (let i = 0; i < 600; i++) {
    const res = await server.call('GET', new URL(url, server.url).pathname, { key: k });
    if (done(res.json)) return res.json;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} never finished`);
}

/** 20 s at 10 fps: ten shots, each panning across one synthetic photograph; encoded by ffmpeg from raw frames. */
async function slideshow(file: string): Promise<void> {
  const child = spawn(FFMPEG, ['-v', 'error', '-y', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', '320x240', '-r', '10', '-i', 'pipe:0', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const done = new Promise<void>((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`ffmpeg exited ${code}`)))));
  for (let shot = 0; shot < 10; shot++) {
    const photo = await getSharp()(await syntheticPhoto(300 + shot)).raw().toBuffer({ resolveWithObject: true });
    for (let f = 0; f < 20; f++) {
      const frame = await getSharp()(photo.data, { raw: photo.info }).extract({ left: 40 + f * 6, top: 60 + f * 3, width: 400, height: 300 }).resize(320, 240).raw().toBuffer();
      if (!child.stdin.write(frame)) await new Promise((r) => child.stdin.once('drain', r));
    }
  }
  child.stdin.end();
  await done;
}

test.before(async () => {
  await slideshow(path('registered.mp4'));
  // 6 s from 8 s, another codec at a low bitrate, half size.
  ff('-ss', '8', '-t', '6', '-i', path('registered.mp4'), '-vf', 'scale=160:120', '-c:v', 'mpeg4', '-b:v', '150k', path('clip.mp4'));
  ff('-ss', '11', '-i', path('registered.mp4'), '-frames:v', '1', path('grab.png'));
  ff('-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=10', '-t', '6', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', path('unrelated.mp4'));
  ff('-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '2', '-c:a', 'aac', path('audio.m4a'));
  // Four hours, cheaply: 16x16 at 1 frame per second (about 200 KB).
  ff('-f', 'lavfi', '-i', 'color=c=gray:size=16x16:rate=1', '-t', '14400', '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '600', path('long.mp4'));
  server = await startTestServer({ plugins: ['search', 'aggregations'], workers: true });
  ({ apiKey: key, id: vidId } = await server.createAccount('vid'));
  other = (await server.createAccount('vidother')).apiKey;
});
test.after.always(async () => server?.close());

test.serial('a video is registered at once and fingerprinted by a job; the Video object describes it', async (t) => {
  const res = await server.call('PUT', '/api/v4/media/vid/films/zoom.mp4', { key, body: readFileSync(path('registered.mp4')), headers: { 'content-type': 'video/mp4' } });
  t.is(res.status, 201, res.text);
  t.is(res.json.type, 'video');
  t.like(res.json.video, { type: 'registered', width: 320, height: 240, format: 'mp4' });
  t.true(Math.abs(res.json.video.duration - 20) < 0.2);
  const ready = await poll(res.json.url, key, (j) => (j.video as { status: string }).status !== 'pending');
  t.is((ready.video as { status: string }).status, 'ready');
  const thumb = await fetch(res.json.video.thumbnail, { headers: { authorization: `Token ${key}` } });
  t.is(thumb.headers.get('content-type'), 'image/jpeg');
  const gql = await server.call('POST', '/graphql', { key, json: { query: '{ media(path: "/vid/films/zoom.mp4") { type video { duration status format width } } }' } });
  t.like(gql.json.data.media, { type: 'video', video: { status: 'ready', format: 'mp4', width: 320 } });
  const account = await server.call('GET', '/api/v4/account/', { key });
  t.true(account.json.disk_usage >= readFileSync(path('registered.mp4')).length, 'the video counts in disk usage');
});

test.serial('streaming_url serves the stored video with byte ranges, to its account only', async (t) => {
  const whole = readFileSync(path('registered.mp4'));
  const media = await server.call('GET', '/api/v4/media/vid/films/zoom.mp4', { key });
  const url = media.json.video.streaming_url as string;
  t.regex(url, /\/media-files\/\d+\/stream$/);
  const auth = { authorization: `Token ${key}` };
  const part = await fetch(url, { headers: { ...auth, range: 'bytes=100-199' } });
  t.is(part.status, 206);
  t.is(part.headers.get('content-range'), `bytes 100-199/${whole.length}`);
  t.is(part.headers.get('content-type'), 'video/mp4');
  t.deepEqual(Buffer.from(await part.arrayBuffer()), whole.subarray(100, 200));
  const tail = await fetch(url, { headers: { ...auth, range: 'bytes=-50' } });
  t.deepEqual(Buffer.from(await tail.arrayBuffer()), whole.subarray(whole.length - 50));
  const all = await fetch(url, { headers: auth });
  t.is(all.status, 200);
  t.is(all.headers.get('accept-ranges'), 'bytes');
  t.is(Buffer.compare(Buffer.from(await all.arrayBuffer()), whole), 0);
  const past = await fetch(url, { headers: { ...auth, range: `bytes=${whole.length}-` } });
  t.is(past.status, 416);
  t.is(past.headers.get('content-range'), `bytes */${whole.length}`);
  t.is((await fetch(url, { headers: { authorization: `Token ${other}` } })).status, 404, 'another account does not see it');
  const gql = await server.call('POST', '/graphql', { key, json: { query: '{ media(path: "/vid/films/zoom.mp4") { video { streamingUrl } } }' } });
  t.is(gql.json.data.media.video.streamingUrl, url);
});

test.serial('a re-encoded, half-size clip is found with both time ranges; another account finds nothing', async (t) => {
  const res = await server.call('POST', '/api/v4/searches/', { key, json: { file: dataUri('clip.mp4', 'video/mp4') } });
  t.is(res.status, 201, res.text);
  const done = await poll(res.json.url);
  t.is(done.status, 'complete', JSON.stringify(done));
  const matches = done.matches as Record<string, number & { media_path: string }>[];
  t.is(matches.length, 1);
  const m = matches[0]!;
  t.is((m.video as unknown as { media_path: string }).media_path, '/vid/films/zoom.mp4');
  t.true(Math.abs(m.matched_video_start_time! - 8) <= 1, `matched start ${m.matched_video_start_time}`);
  t.true(Math.abs(m.matched_video_end_time! - 14) <= 1, `matched end ${m.matched_video_end_time}`);
  t.true(m.query_video_start_time! <= 1 && Math.abs(m.query_video_end_time! - 6) <= 1, `query ${m.query_video_start_time}-${m.query_video_end_time}`);
  t.true(m.matched_video_match_duration! >= 4);
  // GraphQL: the same match as a typed SearchMatch (every REST key a camelCase field; `error` is null when REST leaves it out).
  const gql = await server.call('POST', '/graphql', {
    key,
    json: {
      query: `query($id: String!) { search(id: $id) { type status matches { id created type watermarked
        video { url type width height thumbnail duration format streamingUrl status error mediaPath mediaUrl metadata }
        queryVideoStartTime queryVideoEndTime queryVideoMatchDuration matchedVideoStartTime matchedVideoEndTime matchedVideoMatchDuration } } }`,
      variables: { id: res.json.id },
    },
  });
  const typed = camelCaseKeys<Record<string, Record<string, unknown>>[]>(matches);
  t.deepEqual(gql.json.data?.search, { type: 'video', status: 'complete', matches: typed.map((x) => ({ ...x, video: { error: null, ...x.video } })) }, gql.text);

  const theirs = await server.call('POST', '/api/v4/searches/', { key: other, json: { file: dataUri('clip.mp4', 'video/mp4') } });
  t.deepEqual((await poll(theirs.json.url, other)).matches, []);
});

test.serial('an unrelated video matches nothing; a frame grab finds the video with its time', async (t) => {
  const res = await server.call('POST', '/api/v4/searches/', { key, json: { file: dataUri('unrelated.mp4', 'video/mp4') } });
  t.deepEqual((await poll(res.json.url)).matches, []);
  const grab = await server.call('POST', '/api/v4/searches/', { key, json: { file: dataUri('grab.png', 'image/png'), sync: true } });
  t.is(grab.status, 200, grab.text);
  const video = grab.json.matches.find((m: { video?: unknown }) => m.video);
  t.truthy(video, JSON.stringify(grab.json.matches));
  t.true(Math.abs(video.matched_video_start_time - 11) <= 1, `frame time ${video.matched_video_start_time}`);
});

test.serial('bad videos: clear errors; synchronous video searches are refused', async (t) => {
  const whole = readFileSync(path('registered.mp4'));
  const truncated = await server.call('PUT', '/api/v4/media/vid/bad/truncated.mp4', { key, body: whole.subarray(0, 2000), headers: { 'content-type': 'video/mp4' } });
  t.is(truncated.status, 422, truncated.text);
  t.is(truncated.json.status_code, 422);
  const audio = await server.call('PUT', '/api/v4/media/vid/bad/audio.m4a', { key, body: readFileSync(path('audio.m4a')), headers: { 'content-type': 'audio/mp4' } });
  t.is(audio.status, 422, audio.text);
  t.is(audio.json.code, 'video_no_stream');
  const sync = await server.call('POST', '/api/v4/searches/', { key, json: { file: dataUri('clip.mp4', 'video/mp4'), sync: true } });
  t.is(sync.status, 400);
  t.is((await server.call('GET', '/api/v4/media/vid/bad/truncated.mp4', { key })).status, 404, 'nothing is kept of a refused video');
  // Longer than MAX_VIDEO_SECONDS (1 hour): refused at once, to register and to search.
  const long = await server.call('PUT', '/api/v4/media/vid/bad/long.mp4', { key, body: readFileSync(path('long.mp4')), headers: { 'content-type': 'video/mp4' } });
  t.is(long.status, 413, long.text);
  t.is(long.json.code, 'video_too_long');
  const longSearch = await server.call('POST', '/api/v4/searches/', { key, json: { file: dataUri('long.mp4', 'video/mp4') } });
  t.is(longSearch.status, 413, longSearch.text);
  t.is(longSearch.json.code, 'video_too_long');
  const audioSearch = await server.call('POST', '/api/v4/searches/', { key, json: { file: dataUri('audio.m4a', 'audio/mp4') } });
  t.is(audioSearch.status >= 400 && audioSearch.status < 500, true, audioSearch.text);
  // No decoder outlives its request.
  const children = spawnSync('ps', ['--ppid', String(process.pid), '-o', 'comm='], { encoding: 'utf8' }).stdout;
  t.notRegex(children, /ffmpeg|ffprobe/);
});

test.serial('containers ffmpeg reads are accepted (Ogg, FLV, ASF, MPEG-PS); others are a 415 listing the accepted ones', async (t) => {
  const clip = (name: string, ...codec: string[]) => {
    ff('-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10', '-t', '2', ...codec, path(name));
    return readFileSync(path(name));
  };
  const mpg = clip('clip.mpg', '-c:v', 'mpeg2video', '-f', 'mpeg');
  const reg = await server.call('PUT', '/api/v4/media/vid/formats/clip.mpg', { key, body: mpg, headers: { 'content-type': 'video/mpeg' } });
  t.is(reg.status, 201, reg.text);
  t.like(reg.json.video, { format: 'mpeg', width: 160, height: 120 });
  for (const [name, codec, format] of [
    ['clip.ogv', ['-c:v', 'libtheora'], 'ogg'],
    ['clip.flv', ['-c:v', 'flv1'], 'flv'],
    ['clip.asf', ['-c:v', 'wmv2', '-f', 'asf'], 'asf'],
  ] as const) {
    const bytes = clip(name, ...codec);
    const res = await server.call('POST', '/api/v4/searches/', { key, json: { file: `data:application/octet-stream;base64,${bytes.toString('base64')}` } });
    t.is(res.status, 201, `${format}: ${res.text}`);
    t.like(await poll(res.json.url), { status: 'complete' }, format);
  }
  // NUT and MPEG-TS are not accepted (the ffprobe shipped crashes on transport streams); the 415 names what is.
  const nut = clip('clip.nut', '-c:v', 'mpeg4', '-f', 'nut');
  const ts = clip('clip.ts', '-c:v', 'mpeg2video', '-f', 'mpegts');
  for (const res of [
    await server.call('PUT', '/api/v4/media/vid/formats/clip.nut', { key, body: nut, headers: { 'content-type': 'video/mp4' } }),
    await server.call('POST', '/api/v4/searches/', { key, json: { file: `data:application/octet-stream;base64,${nut.toString('base64')}` } }),
    await server.call('POST', '/api/v4/searches/', { key, json: { file: `data:video/mp2t;base64,${ts.toString('base64')}` } }),
  ]) {
    t.is(res.status, 415, res.text);
    t.is(res.json.code, 'unsupported_format');
    t.regex(res.json.details, /mp4, mov, m4a, 3gp, 3g2, mj2, .*ogg, flv, asf, mpeg\./);
  }
});

test.serial('a video seen on the web goes through the one match pipeline: a web match with the video and its six times', async (t) => {
  const accountId = vidId;
  const pipeline = server.app.container.get<MatchPipeline>(TOKENS.MatchPipeline);
  const sighting = { accountId, source: 'test', kind: 'web' as const, image: {}, video: { bytes: readFileSync(path('clip.mp4')) }, imageUrl: 'https://videos.example.org/clip.mp4', page: { url: 'https://videos.example.org/watch' } };
  const [first] = await pipeline.submit(sighting);
  t.truthy(first);
  t.true(first!.created);
  t.false((await pipeline.submit(sighting))[0]!.created, 'the same video on the same page updates its match');
  const web = await server.call('GET', '/api/v3/matches/web/', { key });
  t.is(web.json.results.length, 1);
  const m = web.json.results[0];
  t.like(m, { type: 'web', watermarked: false, query_url: 'https://videos.example.org/clip.mp4', query_page_url: 'https://videos.example.org/watch', video: { type: 'registered', duration: 20 } });
  t.true(Math.abs(m.matched_video_start_time - 8) <= 1 && Math.abs(m.matched_video_end_time - 14) <= 1, JSON.stringify(m));
  t.true(m.query_video_start_time <= 1 && m.query_video_match_duration >= 4);
  t.is(m.image, undefined);
  const v4 = await server.call('GET', '/api/v4/matches/', { key });
  t.is(v4.json.results[0].media.type, 'video');
  const group = await server.call('GET', '/api/v3/aggregations/group-path/?path=/vid/films/zoom.mp4', { key });
  t.like(group.json.results[0], { match_count: 1, web_count: 1, video_count: 1 });
});

test.serial('deleting the video removes it from the index', async (t) => {
  t.is((await server.call('DELETE', '/api/v4/media/vid/films/zoom.mp4', { key })).status, 204);
  const res = await server.call('POST', '/api/v4/searches/', { key, json: { file: dataUri('clip.mp4', 'video/mp4') } });
  t.deepEqual((await poll(res.json.url)).matches, []);
});

// After the deletion above: the live copies registered here are the account's only video.
test.serial('videos without a duration in their header (written live or to a pipe) are measured by their packets', async (t) => {
  // Matroska and WebM written live to a pipe (as browsers' MediaRecorder and `ffmpeg ... pipe:1`
  // do), and a fragmented MP4 with an empty moov, all from ffmpeg's stdout.
  const piped = (...args: string[]) => execFileSync(FFMPEG, ['-v', 'error', ...args, 'pipe:1'], { maxBuffer: 64 * 1024 * 1024 });
  const mkv = piped('-i', path('registered.mp4'), '-c', 'copy', '-live', '1', '-f', 'matroska');
  const webm = piped('-ss', '8', '-t', '6', '-i', path('registered.mp4'), '-vf', 'scale=160:120', '-c:v', 'libvpx', '-b:v', '300k', '-live', '1', '-f', 'webm');
  const fragmented = piped('-ss', '8', '-t', '6', '-i', path('registered.mp4'), '-c:v', 'libx264', '-movflags', 'frag_keyframe+empty_moov', '-f', 'mp4');
  // Hours between three frames, no duration written: a crafted "short" file that lasts 2 hours.
  const sparse = piped('-f', 'lavfi', '-i', 'color=c=gray:size=16x16:rate=1', '-frames:v', '3', '-vf', 'setpts=N*3600/TB', '-vsync', '0', '-c:v', 'libx264', '-live', '1', '-f', 'matroska');
  for (const [name, bytes] of [['live.mkv', mkv], ['live.webm', webm], ['sparse.mkv', sparse]] as const) {
    writeFileSync(path(name), bytes);
    const header = execFileSync(FFPROBE, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path(name)], { encoding: 'utf8' }).trim();
    t.true(header === '' || header === 'N/A', `${name} has no duration in its header (${header})`);
  }
  const res = await server.call('PUT', '/api/v4/media/vid/live/zoom.mkv', { key, body: mkv, headers: { 'content-type': 'video/x-matroska' } });
  t.is(res.status, 201, res.text);
  t.like(res.json.video, { format: 'mkv', width: 320, height: 240 });
  t.true(Math.abs(res.json.video.duration - 20) < 0.2, `duration ${res.json.video.duration}`);
  const ready = await poll(res.json.url, key, (j) => (j.video as { status: string }).status !== 'pending');
  t.is((ready.video as { status: string }).status, 'ready', JSON.stringify(ready));
  const stream = await fetch(res.json.video.streaming_url, { headers: { authorization: `Token ${key}`, range: 'bytes=0-3' } });
  t.is(stream.headers.get('content-type'), 'video/x-matroska');

  for (const [name, bytes] of [['webm', webm], ['fragmented mp4', fragmented]] as const) {
    const search = await server.call('POST', '/api/v4/searches/', { key, json: { file: `data:application/octet-stream;base64,${bytes.toString('base64')}` } });
    t.is(search.status, 201, `${name}: ${search.text}`);
    const done = await poll(search.json.url);
    const matches = done.matches as { video: { media_path: string }; matched_video_start_time: number; matched_video_end_time: number }[];
    t.is(matches.length, 1, `${name}: ${JSON.stringify(done)}`);
    t.is(matches[0]!.video.media_path, '/vid/live/zoom.mkv');
    t.true(Math.abs(matches[0]!.matched_video_start_time - 8) <= 1 && Math.abs(matches[0]!.matched_video_end_time - 14) <= 1, `${name}: ${JSON.stringify(matches[0])}`);
  }

  // ASF written to a pipe has no duration either; AVI's is false there (placeholder frame counts).
  for (const [format, codec] of [['asf', 'wmv2'], ['avi', 'mpeg4']] as const) {
    const bytes = piped('-f', 'lavfi', '-i', 'testsrc2=size=160x120:rate=10', '-t', '3', '-c:v', codec, '-f', format);
    const put = await server.call('PUT', `/api/v4/media/vid/live/clip.${format}`, { key, body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    t.is(put.status, 201, put.text);
    t.like(put.json.video, { format });
    t.true(Math.abs(put.json.video.duration - 3) < 0.2, `${format}: duration ${put.json.video.duration}`);
  }

  // Hostile: the crafted one is as long as its timestamps say; a header with no frame is empty.
  const long = await server.call('PUT', '/api/v4/media/vid/live/sparse.mkv', { key, body: sparse, headers: { 'content-type': 'video/x-matroska' } });
  t.is(long.status, 413, long.text);
  t.is(long.json.code, 'video_too_long');
  const headerOnly = await server.call('PUT', '/api/v4/media/vid/live/empty.mkv', { key, body: mkv.subarray(0, mkv.indexOf(Buffer.from([0x1f, 0x43, 0xb6, 0x75]))), headers: { 'content-type': 'video/x-matroska' } });
  t.is(headerOnly.status, 422, headerOnly.text);
  t.regex(headerOnly.json.code, /^video_(empty|unreadable)$/);
  t.is((await server.call('GET', '/api/v4/media/vid/live/empty.mkv', { key })).status, 404, 'nothing is kept of a refused video');
});
