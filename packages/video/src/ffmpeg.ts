import { spawn, type ChildProcess } from 'node:child_process';
import { VideoError } from './errors.js';

/** ffmpeg and ffprobe ship inside npm packages (static linux-x64 builds): nothing is downloaded. */
export const FFMPEG = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
export const FFPROBE = (require('@ffprobe-installer/ffprobe') as { path: string }).path;

/**
 * The last line a decoder wrote, for an error a client reads: without the input file's path (a
 * temporary file on the server, never shown), so `/tmp/x/input: Invalid data...` reads `Invalid data...`.
 */
export function decoderMessage(stderr: string, file: string, fallback: string): string {
  const line = stderr.trim().split('\n').pop()?.trim() ?? '';
  const cleaned = line.split(`${file}: `).join('').split(file).join('the file').trim();
  return cleaned || fallback;
}

export interface RunResult {
  stdout: Buffer;
  stderr: string;
  code: number | null;
}

export interface RunOptions {
  timeoutMs: number;
  maxStdout?: number;
  signal?: AbortSignal;
  /**
   * Hands each piece of the output to the caller instead of keeping it (`stdout` is then empty and
   * `maxStdout` does not apply): for outputs read as a stream. Throwing from it stops the process
   * and rejects with that error.
   */
  onStdout?: (chunk: Buffer) => void;
}

/**
 * Runs a decoder process to completion with a time limit and a cap on what it may print; the
 * process is killed (SIGKILL) on timeout, on overflow or when the caller's signal aborts.
 */
export function run(bin: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    let failure: Error | null = null;
    const stop = (e: Error) => {
      failure ??= e;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop(new VideoError('video_timeout', `the decoder took longer than ${options.timeoutMs} ms`)), options.timeoutMs);
    const onAbort = () => stop(new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => {
      if (failure) return;
      if (options.onStdout) {
        try {
          options.onStdout(d);
        } catch (e) {
          stop(e as Error);
        }
        return;
      }
      size += d.length;
      if (size > (options.maxStdout ?? 16 * 1024 * 1024)) stop(new VideoError('video_too_large', 'the decoder output exceeds its limit'));
      else out.push(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 64 * 1024) err += d.toString('utf8');
    });
    child.on('error', (e) => stop(e));
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else resolve({ stdout: Buffer.concat(out), stderr: err, code });
    });
  });
}

/** Kills a child process and waits for it to be reaped. */
export function reap(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGKILL');
  });
}
