import { spawn } from 'node:child_process';
import { decoderMessage, FFMPEG, reap } from './ffmpeg.js';
import { VideoError } from './errors.js';

export interface Frame {
  /** Seconds from the start of the video. */
  time: number;
  /** The frame's place on the video's time line, in tenths of a second (SLOTS_PER_SECOND): a stable key. */
  slot: number;
  /** Taken because the shot changed here, not by the steady rate. */
  scene: boolean;
  /** 8-bit luma, row-major. */
  luma: Uint8Array;
  width: number;
  height: number;
}

export interface SampleOptions {
  /** Steady sampling rate, frames per second (default 2). */
  fps?: number;
  /** Longest side of the frames handed out (default 512: the visual index's grid). */
  side?: number;
  /** The video's own size, to keep its aspect (from probeVideo). */
  width: number;
  height: number;
  /** Mirror the frames horizontally (to look for flipped copies). */
  mirror?: boolean;
  /** The whole decode's time limit (default 10 minutes). */
  timeoutMs?: number;
  /** Stop after this many frames (default: the whole video). */
  maxFrames?: number;
  /** Also take the first frame of every shot (cuts), to a quarter of a second (default false). */
  scenes?: boolean;
}

/** Time resolution of frame slots: tenths of a second. */
export const SLOTS_PER_SECOND = 10;
/**
 * Frames per second compared to find cuts: a cut is placed to a quarter of a second (measured: 10
 * per second cost a tenth of the 720p throughput, for no better time ranges).
 */
const SCENE_RATE = 4;
/**
 * A cut: the mean absolute luma difference with the previous compared frame (on a coarse grid)
 * above this, and well above the difference just before (motion and fades change every frame).
 */
const CUT_DIFFERENCE = 28;
const CUT_JUMP = 2.5;

/** Mean absolute difference of two frames on every 4th pixel of every 4th row. */
function coarseDifference(a: Uint8Array, b: Uint8Array, width: number, height: number): number {
  let sum = 0;
  let n = 0;
  for (let y = 0; y < height; y += 4) {
    for (let x = y * width; x < (y + 1) * width; x += 4) {
      sum += Math.abs(a[x]! - b[x]!);
      n++;
    }
  }
  return n ? sum / n : 0;
}

/** Frames the decoder may decode ahead of the caller. */
const AHEAD = 8;

/**
 * Frames of a video at a steady rate, plus the first frame of each shot when asked (scene cuts),
 * decoded by ffmpeg and streamed one at a time (memory holds a few frames whatever the length).
 * The decoder is killed and reaped when the caller stops early, on timeout, or on error.
 */
export async function* sampleFrames(file: string, options: SampleOptions): AsyncGenerator<Frame> {
  const fps = options.fps ?? 2;
  const side = options.side ?? 512;
  const scale = Math.min(1, side / Math.max(options.width, options.height));
  // Even sizes: some scalers refuse odd ones.
  const w = Math.max(16, Math.round((options.width * scale) / 2) * 2);
  const h = Math.max(16, Math.round((options.height * scale) / 2) * 2);
  // With scenes, SCENE_RATE frames a second are decoded and each compared with the one before; the
  // steady frames are every (SCENE_RATE / fps)th of them, so both kinds sit on one time line.
  const scenes = options.scenes === true && Number.isInteger(SCENE_RATE / fps);
  const rate = scenes ? SCENE_RATE : fps;
  const steadyEvery = scenes ? SCENE_RATE / fps : 1;
  let previous: Uint8Array | null = null;
  let previousDifference = Infinity;
  let emitted = 0;
  for await (const decoded of framesOrLast(file, options, rate, w, h)) {
    const slot = Math.round((decoded.index * SLOTS_PER_SECOND) / rate);
    let take = decoded.index % steadyEvery === 0;
    let cut = false;
    if (scenes) {
      const difference = previous ? coarseDifference(previous, decoded.luma, w, h) : 0;
      cut = !take && difference > CUT_DIFFERENCE && difference > CUT_JUMP * previousDifference;
      previousDifference = difference;
      previous = decoded.luma;
      take ||= cut;
    }
    if (!take) continue;
    yield { time: slot / SLOTS_PER_SECOND, slot, scene: cut, luma: decoded.luma, width: w, height: h };
    emitted++;
    if (options.maxFrames !== undefined && emitted >= options.maxFrames) return;
  }
}

/**
 * The steady frames; when the rate's rounding dropped them all (a video shorter than half a period,
 * one 0.2 s frame, was "no frame could be decoded"), decoded again keeping its last frame. Not
 * always: `eof_action=pass` adds a frame at the end of most videos, which would move fingerprints.
 */
async function* framesOrLast(file: string, options: SampleOptions, fps: number, w: number, h: number): AsyncGenerator<{ index: number; luma: Uint8Array }> {
  let n = 0;
  for await (const f of decodeFrames(file, options, fps, w, h)) {
    n++;
    yield f;
  }
  if (!n) yield* decodeFrames(file, options, fps, w, h, true);
}

/** Frames of a video at a steady rate, already scaled and grey, numbered from 0. */
async function* decodeFrames(file: string, options: SampleOptions, fps: number, w: number, h: number, pass = false): AsyncGenerator<{ index: number; luma: Uint8Array }> {
  const filters = [`fps=${fps}${pass ? ':eof_action=pass' : ''}`, `scale=${w}:${h}:flags=area`, ...(options.mirror ? ['hflip'] : []), 'format=gray'];
  // Frames are reduced to a few hundred pixels: the in-loop deblocking filter (skipped) and exact
  // decoding shortcuts (flags2 fast) change nothing visible there and save a third of the decode.
  // (Skipping B-frames halves it again but moved clips' time ranges by over 1 s in the bench.)
  const decoder = ['-skip_loop_filter', 'all', '-flags2', 'fast'];
  const child = spawn(FFMPEG, ['-v', 'error', '-nostdin', ...decoder, '-i', file, '-an', '-sn', '-vf', filters.join(','), '-f', 'rawvideo', 'pipe:1'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 16 * 1024) stderr += d.toString('utf8');
  });
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 600_000);
  const frameBytes = w * h;
  // The decoder works ahead while the caller describes frames (two cores busy, not one after the
  // other), by at most AHEAD frames: the stream pauses beyond that, so memory stays bounded.
  const ahead = AHEAD * frameBytes;
  const chunks: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let wake: (() => void) | null = null;
  const stdout = child.stdout;
  stdout.on('data', (d: Buffer) => {
    chunks.push(d);
    queued += d.length;
    if (queued > ahead) stdout.pause();
    wake?.();
  });
  const finish = () => {
    ended = true;
    wake?.();
  };
  stdout.once('close', finish);
  stdout.once('error', finish); // the exit code and stderr tell what went wrong
  let pending: Buffer = Buffer.alloc(0);
  let index = 0;
  try {
    for (;;) {
      const chunk = chunks.shift();
      if (!chunk) {
        if (ended) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      queued -= chunk.length;
      if (queued <= ahead && stdout.isPaused()) stdout.resume();
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= frameBytes) {
        const luma = new Uint8Array(pending.subarray(0, frameBytes));
        pending = pending.subarray(frameBytes);
        yield { index, luma };
        index++;
      }
    }
    const code = await closed;
    if (timedOut) throw new VideoError('video_timeout', `decoding took longer than ${options.timeoutMs ?? 600_000} ms`);
    if (code !== 0 && index === 0) throw new VideoError('video_unreadable', `the video could not be decoded: ${decoderMessage(stderr, file, 'ffmpeg failed')}`);
  } finally {
    clearTimeout(timer);
    await reap(child);
  }
}
