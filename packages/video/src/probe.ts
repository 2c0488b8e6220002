import { decoderMessage, FFPROBE, run } from './ffmpeg.js';
import { VideoError } from './errors.js';

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
}

const CONTAINERS: [RegExp, string][] = [
  [/qt|quicktime/, 'mov'],
  [/3gp5|3gp/, '3gp'],
  [/3g2/, '3g2'],
  [/mjp2/, 'mj2'],
  [/M4A/, 'm4a'],
];

/** The container name a client would use, from ffprobe's format and the file's brand. */
function containerOf(formatName: string, brand: string | undefined): string {
  if (formatName.includes('mp4') || formatName.includes('mov')) {
    for (const [re, name] of CONTAINERS) if (brand && re.test(brand)) return name;
    return 'mp4';
  }
  if (formatName.includes('webm') || formatName.includes('matroska')) return formatName.includes('webm') ? 'webm' : 'mkv';
  return formatName.split(',')[0]!;
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
  const duration = Number(parsed.format?.duration ?? stream.duration);
  if (!Number.isFinite(duration) || duration <= 0) throw new VideoError('video_empty', 'the video has no duration (empty or truncated)');
  if (duration > (limits.maxDuration ?? 4 * 3600)) throw new VideoError('video_too_long', `the video lasts ${Math.round(duration)} s; the limit is ${limits.maxDuration ?? 4 * 3600} s`);
  if (stream.width * stream.height > (limits.maxPixels ?? 7680 * 4320)) {
    throw new VideoError('video_too_large', `frames of ${stream.width}x${stream.height} exceed the limit of ${limits.maxPixels ?? 7680 * 4320} pixels`);
  }
  return {
    duration,
    width: stream.width,
    height: stream.height,
    codec: stream.codec_name ?? 'unknown',
    format: containerOf(parsed.format?.format_name ?? '', parsed.format?.tags?.major_brand),
  };
}
