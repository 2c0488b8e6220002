import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { FFMPEG } from '../src/ffmpeg.js';
import { sampleFrames, type Frame } from '../src/frames.js';

const dir = mkdtempSync(join(tmpdir(), 'filigrane-frames-'));
test.after.always(() => rmSync(dir, { recursive: true, force: true }));

let shots: string | undefined;

/**
 * 1.3 s of one moving test pattern, then a cut to 1.7 s of another (25 fps, H.264). Written once:
 * the tests run at once, and rewriting it truncated the file under another test's decoder.
 */
function twoShots(): string {
  if (shots) return shots;
  const file = join(dir, 'two-shots.mp4');
  execFileSync(FFMPEG, [
    '-v', 'error', '-y',
    '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25:duration=1.3',
    '-f', 'lavfi', '-i', 'mandelbrot=size=320x240:rate=25,trim=duration=1.7',
    '-filter_complex', '[0:v][1:v]concat=n=2:v=1[v]', '-map', '[v]', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file,
  ]);
  return (shots = file);
}

async function all(file: string, scenes: boolean): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const f of sampleFrames(file, { fps: 2, side: 160, width: 320, height: 240, scenes })) out.push({ ...f, luma: new Uint8Array(0) });
  return out;
}

test('steady frames every half second; with scenes, also the first frame of the new shot, on the same time line', async (t) => {
  const file = twoShots();
  const steady = await all(file, false);
  t.deepEqual(steady.map((f) => f.time), [0, 0.5, 1, 1.5, 2, 2.5]);
  t.deepEqual(steady.map((f) => f.slot), [0, 5, 10, 15, 20, 25]);
  const withScenes = await all(file, true);
  const cuts = withScenes.filter((f) => f.scene);
  t.deepEqual(cuts.map((f) => f.time), [1.3], 'one cut, where the second shot begins (to a quarter of a second: 1.25, slot 13)');
  t.deepEqual(withScenes.filter((f) => !f.scene).map((f) => f.slot), steady.map((f) => f.slot), 'the steady frames are unchanged');
});

test('a video shorter than half a sampling period still gives its frame (a 0.2 s clip of one frame: the thumbnail at 1 fps, the fingerprint at 2)', async (t) => {
  const file = join(dir, 'one-frame.mp4');
  execFileSync(FFMPEG, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=5:duration=0.2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', file]);
  for (const fps of [1, 2]) {
    const frames: number[] = [];
    for await (const f of sampleFrames(file, { fps, side: 160, width: 320, height: 240 })) frames.push(f.time);
    t.deepEqual(frames, [0], `at ${fps} fps`);
  }
  t.deepEqual((await all(twoShots(), false)).length, 6, 'a longer video gains no frame at its end');
});
