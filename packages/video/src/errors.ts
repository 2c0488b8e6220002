/** A video the service refuses, with a code the API maps to a status (see media's error mapping). */
export class VideoError extends Error {
  constructor(
    readonly code: 'video_unreadable' | 'video_no_stream' | 'video_too_long' | 'video_too_large' | 'video_empty' | 'video_timeout',
    message: string,
  ) {
    super(message);
    this.name = 'VideoError';
  }
}
