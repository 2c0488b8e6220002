import { open } from 'node:fs/promises';
import { decoderMessage, FFPROBE, run } from './ffmpeg.js';
import { VideoError } from './errors.js';
import { sniffVideo } from './sniff.js';

export interface VideoInfo {
  /** Seconds. */
  duration: number;
  width: number;
  height: number;
  /** Video codec name (h264, mpeg4, vp9...). */
  codec: string;
  /** Container, as the spec names formats: mp4, mov, 3gp, 3g2, mj2, m4a, and the others of VIDEO_FORMATS. */
  format: string;
}

export interface ProbeLimits {
  /** Longest video accepted, in seconds (default 4 hours). */
  maxDuration?: number;
  /** Largest frame accepted, in pixels (default 8K UHD, 33.2 MP). */
  maxPixels?: number;
  timeoutMs?: number;
  /** Time limit of reading the packets when the header gives no duration (default 60 s). */
  scanTimeoutMs?: number;
}

const CONTAINERS: [RegExp, string][] = [
  [/qt|quicktime/, 'mov'],
  [/3gp5|3gp/, '3gp'],
  [/3g2/, '3g2'],
  [/mjp2/, 'mj2'],
  [/M4A/, 'm4a'],
];

/** The container name a client would use, from ffprobe's format and the file's brand. */
function containerOf(formatName: string, brand: string | undefined, sniffed: string | null): string {
  if (formatName.includes('mp4') || formatName.includes('mov')) {
    for (const [re, name] of CONTAINERS) if (brand && re.test(brand)) return name;
    return 'mp4';
  }
  if (formatName.includes('webm') || formatName.includes('matroska')) return sniffed === 'mkv' ? 'mkv' : 'webm';
  return formatName.split(',')[0]!;
}

/** The container the file's first bytes name (Matroska's DocType tells mkv from webm). */
async function sniffFile(file: string): Promise<string | null> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64), 0, 64, 0);
    return sniffVideo(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** Duration, size, codec and container of a video file, refusing what the limits exclude. */
export async function probeVideo(file: string, limits: ProbeLimits = {}): Promise<VideoInfo> {
  const res = await run(FFPROBE, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { timeoutMs: limits.timeoutMs ?? 20_000, maxStdout: 4 * 1024 * 1024 });
  if (res.code !== 0) throw new VideoError('video_unreadable', `not a readable video: ${decoderMessage(res.stderr, file, 'ffprobe failed')}`);
  const parsed = JSON.parse(res.stdout.toString('utf8')) as {
    format?: { format_name?: string; duration?: string; tags?: Record<string, string> };
    streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number; duration?: string; disposition?: { attached_pic?: number } }[];
  };
  const stream = parsed.streams?.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  if (!stream || !stream.width || !stream.height) throw new VideoError('video_no_stream', 'the file has no video stream (audio only?)');
  const maxDuration = limits.maxDuration ?? 4 * 3600;
  let duration = Number(parsed.format?.duration ?? stream.duration);
  // Matroska/WebM/ASF written live or to a pipe (browsers' MediaRecorder, ffmpeg to stdout) carry
  // no duration in their header, and an AVI written so carries a false one (placeholder frame
  // counts: 6 s read as 2,521 s): the packets tell it.
  if (!Number.isFinite(duration) || duration <= 0 || parsed.format?.format_name === 'avi') {
    const measured = await packetDuration(file, maxDuration, limits.scanTimeoutMs ?? 60_000);
    if (Number.isFinite(measured) && measured > 0) duration = measured;
  }
  if (!Number.isFinite(duration) || duration <= 0) throw new VideoError('video_empty', 'the video has no duration (empty or truncated)');
  if (duration > maxDuration) throw new VideoError('video_too_long', `the video lasts ${Math.round(duration)} s; the limit is ${maxDuration} s`);
  if (stream.width * stream.height > (limits.maxPixels ?? 7680 * 4320)) {
    throw new VideoError('video_too_large', `frames of ${stream.width}x${stream.height} exceed the limit of ${limits.maxPixels ?? 7680 * 4320} pixels`);
  }
  return {
    duration,
    width: stream.width,
    height: stream.height,
    codec: stream.codec_name ?? 'unknown',
    format: containerOf(parsed.format?.format_name ?? '', parsed.format?.tags?.major_brand, await sniffFile(file)),
  };
}

/**
 * How long the first video stream lasts by its packets (demuxed, not decoded: a few seconds for
 * gigabytes): from the earliest timestamp to the end of the latest packet. The listing is read as a
 * stream (constant memory), with a time limit, and stops once past `maxDuration`, so a long or
 * crafted file (timestamps hours apart) is refused without reading it all. NaN when no packet has
 * a timestamp.
 */
async function packetDuration(file: string, maxDuration: number, timeoutMs: number): Promise<number> {
  let first = Infinity;
  let end = -Infinity;
  let partial = '';
  const field = (line: string, key: string) => {
    const at = line.indexOf(`${key}=`);
    if (at < 0) return NaN;
    const value = line.slice(at + key.length + 1).split('|', 1)[0]!;
    return value === '' ? NaN : Number(value); // 'N/A' is NaN too
  };
  const take = (line: string) => {
    let t = field(line, 'pts_time');
    if (!Number.isFinite(t)) t = field(line, 'dts_time');
    if (!Number.isFinite(t)) return;
    const length = field(line, 'duration_time');
    first = Math.min(first, t);
    end = Math.max(end, t + (Number.isFinite(length) && length > 0 ? length : 0));
    if (end - first > maxDuration) throw new VideoError('video_too_long', `the video lasts over ${maxDuration} s; the limit is ${maxDuration} s`);
  };
  const res = await run(
    FFPROBE,
    ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'packet=pts_time,dts_time,duration_time', '-of', 'compact=p=0', file],
    {
      timeoutMs,
      onStdout: (chunk) => {
        const lines = (partial + chunk.toString('latin1')).split('\n');
        partial = lines.pop()!;
        // A line is a few dozen bytes; one without an end past 4 KiB is not ffprobe's listing.
        if (partial.length > 4096) throw new VideoError('video_unreadable', 'the video\'s packets could not be read');
        for (const line of lines) take(line);
      },
    },
  );
  if (partial) take(partial);
  if (res.code !== 0 && end === -Infinity) throw new VideoError('video_unreadable', `not a readable video: ${decoderMessage(res.stderr, file, 'ffprobe failed')}`);
  // To the millisecond: Matroska's timestamps are; the float sum of their seconds is not.
  return Math.round((end - first) * 1000) / 1000;
}
