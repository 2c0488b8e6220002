export * from './errors.js';
export { FFMPEG, FFPROBE, run, reap } from './ffmpeg.js';
export * from './probe.js';
export * from './frames.js';
export * from './align.js';
export * from './sniff.js';
export * from './pipelined.js';
export * from './sampling.js';
